package dev.ratelimit.client;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.Windows;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Outbound calls limited by a rule shared through Redis by three instances of an application, against a provider
 * stub that refuses (429) more than 10 calls in any sliding second on its own clock.
 */
@RedisStandaloneTest
class OutboundIntegrationTests {


	/**
	 * The shortest stall of this JVM that may explain a refusal: less than the rule's headroom (80 ms per 10 calls),
	 * which absorbs the jitter of threads woken a little late.
	 */
	private static final long STALL_MILLIS = 50;

	/** Jitter of a WebClient call's arrival that the provider of the WebClient test allows. */
	private static final Duration WEB_CLIENT_JITTER = Duration.ofMillis(100);

	/** How far apart the first and the eleventh slot of rule {@code provider} (10 per 1080 ms) are at least. */
	private static final Duration TEN_INTERVALS = Duration.ofMillis(1080);

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	@BeforeAll
	static void start() {
		for (int i = 0; i < 3; i++) {
			instances.add(OutboundTestApplication.start(RedisStandaloneExtension.shared().uri()));
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	/**
	 * Three instances × 16 threads call the provider through a {@code RestClient} with the interceptor of rule
	 * {@code provider} (GCRA 10 per 1080 ms: the provider's 10/s less 80 ms of headroom per window for the jitter
	 * between a call's slot and its arrival; no burst; {@code max-wait: 30s}) for 3 seconds: every call waits for its
	 * slot in the schedule kept in Redis, so the provider, which refuses an 11th call in any sliding second, refuses
	 * none but where calls reached it late (see {@link #assertNoRefusalButOfLateCalls}), and the slots of the calls
	 * (from the first to the last) are 10/s within 10%. Each call carries its slot to the provider: the interceptor is
	 * that of a {@link RateLimitedClients} made as the auto-configuration makes it, on the instance's limiter seen
	 * through {@link SlotRecordingLimiter}.
	 */
	@Test
	void threeInstancesKeepToTheProvidersCapTogether() throws Exception {
		try (ProviderStub provider = ProviderStub.start(10, Duration.ofSeconds(1))) {
			// HttpURLConnection sends on the calling thread: no hand-over between a call's slot and its request
			List<RestClient> clients = instances.stream()
				.map((instance) -> RestClient.builder()
					.requestFactory(new SimpleClientHttpRequestFactory())
					.baseUrl(provider.url())
					.requestInterceptor(new RateLimitedClients(new SlotRecordingLimiter(instance.getBean(RateLimiter.class)),
							instance.getBean(RateLimitRules.class), false, Duration.ofMinutes(1), Clock.systemUTC(),
							System::nanoTime)
						.interceptor("provider"))
					.requestInterceptor(SlotRecordingLimiter::sendSlot)
					.build())
				.toList();
			// the code paths of 48 threads calling at once, warmed up under a rule that admits them all (a cold JVM on
			// a loaded machine otherwise sends the first calls late, next to later ones), and each client's first
			// call under the measured rule: neither is counted by the provider
			List<RestClient> warmUp = instances.stream()
				.map((instance) -> RestClient.builder()
					.requestFactory(new SimpleClientHttpRequestFactory())
					.baseUrl(provider.url())
					.requestInterceptor(instance.getBean(RateLimitedClients.class).interceptor("no-wait"))
					.build())
				.toList();
			Race.run(48, (thread) -> warmUp.get(thread % 3).get().uri("/warmup").retrieve().toBodilessEntity());
			clients.forEach((client) -> client.get().uri("/warmup").retrieve().toBodilessEntity());
			AtomicInteger calls = new AtomicInteger();
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
			Stalls stalls = Stalls.longerThan(STALL_MILLIS);
			Race.run(48, (thread) -> {
				RestClient client = clients.get(thread % 3);
				while (System.nanoTime() < deadline) {
					try {
						client.get().uri("/pay").retrieve().toBodilessEntity();
					}
					catch (OutboundRateLimitExceededException ex) {
						// the provider's refusal, counted by the provider and asserted below
					}
					calls.incrementAndGet();
				}
			});
			stalls.close();
			long[] arrivals = provider.arrivals();
			double seconds = (arrivals[arrivals.length - 1] - arrivals[0]) / 1e9;
			double rate = (arrivals.length - 1) / seconds;
			// the rate of the slots the three instances reserved together, from the first to the last, known to within
			// the time the reservations took (that of the arrivals also counts how late the first and the last call
			// reached the provider: one 250 ms late in 8 s of calls is 3%)
			List<long[]> slots = provider.slots();
			double[] span = spanOf(slots);
			double fastest = (slots.size() - 1) / span[0];
			double slowest = (slots.size() - 1) / span[1];
			System.out.printf("outbound: %d calls in %.2f s at the provider: %.2f/s (their slots: %.2f to %.2f/s); most"
					+ " in any 1 s window: %d%n", arrivals.length, seconds, rate, slowest, fastest,
					Windows.mostInAnyWindow(arrivals, TimeUnit.SECONDS.toNanos(1)));
			assertNoRefusalButOfLateCalls(provider, Duration.ofSeconds(1), stalls);
			assertThat(arrivals).hasSize(calls.get());
			assertThat(slots).as("every call carried its slot").hasSize(calls.get());
			assertThat(calls.get()).as("calls made").isGreaterThan(40);
			assertThat(fastest).as("calls per second scheduled for the provider, at most").isGreaterThanOrEqualTo(9.0);
			assertThat(slowest).as("calls per second scheduled for the provider, at least").isLessThanOrEqualTo(11.0);
		}
	}

	/**
	 * Twenty concurrent calls through a {@code WebClient} with the filter of rule {@code provider}: none is refused
	 * by the provider but where calls reached it late (see {@link #assertNoRefusalButOfLateCalls}), and their slots
	 * are spaced at the rule's rate (no thread is held while they wait). Until {@code acquireAsync} makes its store
	 * call without blocking (issue 14), the 20 reservations are made one after another on the subscribing thread
	 * while the first calls go out, which delays them by up to tens of milliseconds on a loaded machine; this provider
	 * allows {@link #WEB_CLIENT_JITTER} of it (its window is that much shorter than a second). Each call carries its
	 * slot to the provider, as in {@link #threeInstancesKeepToTheProvidersCapTogether}.
	 */
	@Test
	void webClientCallsWaitForTheirSlotsWithoutAThread() throws Exception {
		Duration window = Duration.ofSeconds(1).minus(WEB_CLIENT_JITTER);
		try (ProviderStub provider = ProviderStub.start(10, window)) {
			ConfigurableApplicationContext instance = instances.get(0);
			WebClient client = WebClient.builder()
				.clientConnector(new JdkClientHttpConnector())
				.baseUrl(provider.url())
				.filter(new RateLimitedWebClients(new RateLimitedClients(
						new SlotRecordingLimiter(instance.getBean(RateLimiter.class)),
						instance.getBean(RateLimitRules.class), false, Duration.ofMinutes(1), Clock.systemUTC(),
						System::nanoTime))
					.filter("provider"))
				.filter(SlotRecordingLimiter::sendSlot)
				.build();
			// the reactive path of 20 concurrent calls warmed up under a rule that admits them all, and the client's
			// first call under the measured rule: neither is counted by the provider
			WebClient warmUp = WebClient.builder()
				.clientConnector(new JdkClientHttpConnector())
				.baseUrl(provider.url())
				.filter(instances.get(0).getBean(RateLimitedWebClients.class).filter("no-wait"))
				.build();
			Flux.range(0, 20)
				.flatMap((i) -> warmUp.get().uri("/warmup").retrieve().toBodilessEntity(), 20)
				.blockLast(Duration.ofSeconds(30));
			client.get().uri("/warmup").retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
			Stalls stalls = Stalls.longerThan(STALL_MILLIS);
			List<Integer> statuses = Flux.range(0, 20)
				.flatMap((i) -> client.get()
					.uri("/pay")
					.retrieve()
					.toBodilessEntity()
					.map((entity) -> entity.getStatusCode().value())
					.onErrorResume(OutboundRateLimitExceededException.class, (ex) -> Mono.just(ex.getRemoteStatus())), 20)
				.collectList()
				.block(Duration.ofSeconds(30));
			long[] arrivals = provider.arrivals();
			double seconds = (arrivals[arrivals.length - 1] - arrivals[0]) / 1e9;
			// from the first slot to the last, known to within the time the reservations took (the arrivals' span also
			// counts how late the first and the last call reached the provider)
			double[] span = spanOf(provider.slots());
			System.out.printf("outbound (WebClient): 20 calls in %.2f s (their slots: %.2f to %.2f s); most in any 1 s"
					+ " window: %d%n", seconds, span[0], span[1],
					Windows.mostInAnyWindow(arrivals, TimeUnit.SECONDS.toNanos(1)));
			stalls.close();
			assertNoRefusalButOfLateCalls(provider, window, stalls);
			assertThat(statuses).hasSize(20).filteredOn((status) -> status != 429).containsOnly(200);
			assertThat(provider.slots()).as("every call carried its slot").hasSize(20);
			assertThat(span[0]).as("seconds from the first slot to the last, at least: 19 intervals of 108 ms, within 10%")
				.isLessThanOrEqualTo(2.26);
			assertThat(span[1]).as("seconds from the first slot to the last, at most: 19 intervals of 108 ms, within 10%")
				.isGreaterThanOrEqualTo(1.85);
		}
	}

	/**
	 * A {@code WebClient} call that waits for its slot (rule {@code slow}: one per 5 s) and whose subscriber
	 * cancels gives the slot back: the provider never sees it, and the next reservation gets the slot it had.
	 */
	@Test
	void aCancelledWebClientCallGivesItsSlotBack() throws Exception {
		try (ProviderStub provider = ProviderStub.start(10, Duration.ofSeconds(1))) {
			ConfigurableApplicationContext instance = instances.get(1);
			WebClient client = WebClient.builder()
				.clientConnector(new JdkClientHttpConnector())
				.baseUrl(provider.url())
				.filter(instance.getBean(RateLimitedWebClients.class).filter("slow"))
				.build();
			client.get().uri("/pay").retrieve().toBodilessEntity().block(Duration.ofSeconds(10));
			Disposable waiting = client.get().uri("/pay").retrieve().toBodilessEntity().subscribe();
			RateLimiter limiter = instance.getBean(RateLimiter.class);
			RateLimitedClients clients = instance.getBean(RateLimitedClients.class);
			Verdict behind = limiter.evaluate(clients.admit("slow", provider.target()).checks());
			// the first call's slot was e s ago: behind the waiting call's slot (5 s after it) this one waits 10 - e s,
			// without it 5 - e s; more than 5 s tells them apart however long e took on a loaded machine
			assertThat(behind.delay()).as("behind the waiting call").isGreaterThan(Duration.ofMillis(5_000));
			limiter.cancel(behind);
			waiting.dispose();
			Verdict next = limiter.evaluate(clients.admit("slow", provider.target()).checks());
			assertThat(next.delay()).as("the slot given back").isBetween(Duration.ofMillis(1), Duration.ofMillis(5_000));
			limiter.cancel(next);
			assertThat(provider.arrivals()).as("only the first call reached the provider").hasSize(1);
		}
	}

	/**
	 * A provider's 429 with {@code Retry-After} becomes an {@link OutboundRateLimitExceededException} carrying its
	 * status and wait (from a {@code RestClient} and a {@code WebClient}); without pausing, the next call is made.
	 */
	@Test
	void aProvidersRefusalIsSurfacedWithItsRetryAfter() throws Exception {
		try (ProviderStub provider = ProviderStub.start(1000, Duration.ofSeconds(1))) {
			ConfigurableApplicationContext instance = instances.get(2);
			RestClient client = RestClient.builder()
				.baseUrl(provider.url())
				.requestInterceptor(instance.getBean(RateLimitedClients.class).interceptor("no-wait"))
				.build();
			provider.refuseNext(1, 429, "7");
			assertThatExceptionOfType(OutboundRateLimitExceededException.class)
				.isThrownBy(() -> client.get().uri("/pay").retrieve().toBodilessEntity())
				.satisfies((ex) -> {
					assertThat(ex.getReason()).isEqualTo(OutboundRateLimitExceededException.Reason.REMOTE);
					assertThat(ex.getRemoteStatus()).isEqualTo(429);
					assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(7));
					assertThat(ex.getRule()).isEqualTo("no-wait");
					assertThat(ex.getTarget()).isEqualTo(provider.target());
				});
			assertThat(client.get().uri("/pay").retrieve().toBodilessEntity().getStatusCode().value()).isEqualTo(200);
			WebClient webClient = WebClient.builder()
				.clientConnector(new JdkClientHttpConnector())
				.baseUrl(provider.url())
				.filter(instance.getBean(RateLimitedWebClients.class).filter("no-wait"))
				.build();
			provider.refuseNext(1, 503, "3");
			AtomicReference<Throwable> failure = new AtomicReference<>();
			webClient.get().uri("/pay").retrieve().toBodilessEntity().doOnError(failure::set).onErrorComplete()
				.block(Duration.ofSeconds(10));
			assertThat(failure.get()).isInstanceOfSatisfying(OutboundRateLimitExceededException.class, (ex) -> {
				assertThat(ex.getRemoteStatus()).isEqualTo(503);
				assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofSeconds(3));
			});
			assertThat(provider.arrivals()).hasSize(3);
		}
	}

	/**
	 * With pausing on, a provider's {@code Retry-After} pauses the rule's calls to it in this instance: a call that
	 * may wait as long ({@code provider}, {@code max-wait: 30s}) reaches the provider no sooner than the wait after
	 * the refusal; a call that may not ({@code no-wait}) is refused at once without reaching it.
	 */
	@Test
	void aRetryAfterPausesTheRulesCallsWhenEnabled() throws Exception {
		try (ProviderStub provider = ProviderStub.start(1000, Duration.ofSeconds(1))) {
			ConfigurableApplicationContext instance = instances.get(0);
			RateLimitedClients clients = new RateLimitedClients(instance.getBean(RateLimiter.class),
					instance.getBean(RateLimitRules.class), true, Duration.ofMinutes(1), Clock.systemUTC(),
					System::nanoTime);
			RestClient waiting = RestClient.builder()
				.baseUrl(provider.url())
				.requestInterceptor(clients.interceptor("provider"))
				.build();
			provider.refuseNext(1, 429, "1");
			assertThatExceptionOfType(OutboundRateLimitExceededException.class)
				.isThrownBy(() -> waiting.get().uri("/pay").retrieve().toBodilessEntity());
			assertThat(clients.pausedFor("provider", provider.target())).isPositive();
			waiting.get().uri("/pay").retrieve().toBodilessEntity();
			long[] arrivals = provider.arrivals();
			assertThat(arrivals[1] - arrivals[0]).as("the second call waited out the Retry-After")
				.isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));

			RestClient refused = RestClient.builder()
				.baseUrl(provider.url())
				.requestInterceptor(clients.interceptor("no-wait"))
				.build();
			provider.refuseNext(1, 429, "60");
			assertThatExceptionOfType(OutboundRateLimitExceededException.class)
				.isThrownBy(() -> refused.get().uri("/pay").retrieve().toBodilessEntity())
				.satisfies((ex) -> assertThat(ex.isRemote()).isTrue());
			assertThatExceptionOfType(OutboundRateLimitExceededException.class)
				.isThrownBy(() -> refused.get().uri("/pay").retrieve().toBodilessEntity())
				.satisfies((ex) -> {
					assertThat(ex.getReason()).isEqualTo(OutboundRateLimitExceededException.Reason.PAUSED);
					assertThat(ex.getRetryAfter()).isBetween(Duration.ofSeconds(50), Duration.ofSeconds(60));
				});
			assertThat(provider.arrivals()).as("the paused call was not made").hasSize(3);
		}
	}

	/**
	 * Asserts that the provider refused no call but where calls reached it late. The slots of any 11 calls of rule
	 * {@code provider} are at least 10 intervals (1080 ms) apart from first to last, so 11 of them within the
	 * provider's window means that one reached it more than the difference (the headroom: 80 ms for a window of a
	 * second) later than its slot, relative to another: each refusal must show a call of its window that late (a
	 * thread woken late after its slot, a provider's dispatcher busy with another request, a stall of this JVM, all
	 * of them common on a machine shared with other builds). A schedule with 11 slots in the window would be refused
	 * with every call on time, and fails.
	 */
	private static void assertNoRefusalButOfLateCalls(ProviderStub provider, Duration window, Stalls stalls) {
		List<Long> refused = provider.refusedAt();
		long headroom = TEN_INTERVALS.minus(window).toNanos();
		List<String> latest = new ArrayList<>();
		for (long at : refused) {
			long most = provider.latenessInWindowEndingAt(at).stream().mapToLong(Long::longValue).max().orElseThrow();
			latest.add(TimeUnit.NANOSECONDS.toMillis(most) + "ms");
		}
		System.out.printf("outbound: %d calls refused by the provider; the latest arrival after its slot in each"
				+ " refused call's window: %s; stalls of this JVM: %s%n", refused.size(), latest, stalls.describe());
		for (long at : refused) {
			assertThat(provider.latenessInWindowEndingAt(at))
				.as("how late the calls in the window of a refused call reached the provider after their slots (ns;"
						+ " gaps between arrivals, ms: %s; stalls of this JVM: %s)", provider.gaps(), stalls.describe())
				.anyMatch((lateness) -> lateness > headroom);
		}
	}

	/**
	 * Returns the seconds from the first slot to the last, at least and at most: each slot is known to within the
	 * time its reservation took.
	 */
	private static double[] spanOf(List<long[]> slots) {
		long earliestFirst = slots.stream().mapToLong((slot) -> slot[0]).min().orElseThrow();
		long latestFirst = slots.stream().mapToLong((slot) -> slot[1]).min().orElseThrow();
		long earliestLast = slots.stream().mapToLong((slot) -> slot[0]).max().orElseThrow();
		long latestLast = slots.stream().mapToLong((slot) -> slot[1]).max().orElseThrow();
		return new double[] { (earliestLast - latestFirst) / 1e9, (latestLast - earliestFirst) / 1e9 };
	}

	/**
	 * An application's limiter, seen by a test: it notes the slot of each decision, for {@link #sendSlot} to send
	 * with the call, on the thread where the call goes on at its slot (the caller's, as
	 * {@link RateLimitedClients#acquire} decides and waits on it; the one that completes the future of
	 * {@link #acquireAsync}). Redis decides on its own clock some time between the question and the answer, so the
	 * slot is its delay after the one at the earliest, after the other at the latest (where the wait for it ends).
	 * Only for calls that are not cancelled: cancelling the future of {@link #acquireAsync} would not reach the
	 * reservation.
	 */
	static final class SlotRecordingLimiter implements RateLimiter {

		private static final ThreadLocal<String> slot = new ThreadLocal<>();

		private final Map<Verdict, String> decided = Collections.synchronizedMap(new IdentityHashMap<>());

		private final RateLimiter limiter;

		SlotRecordingLimiter(RateLimiter limiter) {
			this.limiter = limiter;
		}

		/** An interceptor after the rate limit's: the call's slot, in {@link ProviderStub#SLOT_HEADER}. */
		static ClientHttpResponse sendSlot(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
				throws IOException {
			String noted = slot.get();
			if (noted != null) {
				request.getHeaders().set(ProviderStub.SLOT_HEADER, noted);
				slot.remove();
			}
			return execution.execute(request, body);
		}

		/** A {@code WebClient} filter after the rate limit's: the call's slot, in {@link ProviderStub#SLOT_HEADER}. */
		static Mono<ClientResponse> sendSlot(ClientRequest request, ExchangeFunction next) {
			String noted = slot.get();
			slot.remove();
			return next.exchange((noted != null)
					? ClientRequest.from(request).header(ProviderStub.SLOT_HEADER, noted).build() : request);
		}

		private static String bounds(long asked, long answered, Verdict verdict) {
			long delay = verdict.delay().toNanos();
			return (asked + delay) + " " + (answered + delay);
		}

		@Override
		public Verdict evaluate(List<RateLimitCheck> checks) {
			long asked = System.nanoTime();
			Verdict verdict = this.limiter.evaluate(checks);
			slot.set(bounds(asked, System.nanoTime(), verdict));
			return verdict;
		}

		@Override
		public CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks) {
			long asked = System.nanoTime();
			return this.limiter.evaluateAsync(checks).whenComplete((verdict, ex) -> {
				if (verdict != null) {
					this.decided.put(verdict, bounds(asked, System.nanoTime(), verdict));
				}
			});
		}

		@Override
		public CompletableFuture<Verdict> acquireAsync(List<RateLimitCheck> checks) {
			// completed at the slot, on the thread that goes on with the call
			return RateLimiter.super.acquireAsync(checks).thenApply((verdict) -> {
				slot.remove();
				String bounds = this.decided.remove(verdict);
				if (bounds != null) {
					slot.set(bounds);
				}
				return verdict;
			});
		}

		@Override
		public void cancel(Verdict verdict) {
			this.limiter.cancel(verdict);
		}

		@Override
		public CompletableFuture<Void> cancelAsync(Verdict verdict) {
			return this.limiter.cancelAsync(verdict);
		}

		@Override
		public List<Boolean> release(List<Lease> leases) {
			return this.limiter.release(leases);
		}

		@Override
		public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
			return this.limiter.releaseAsync(leases);
		}

		@Override
		public List<Decision> refund(List<Consumption> consumptions) {
			return this.limiter.refund(consumptions);
		}

		@Override
		public List<Decision> settle(List<Settlement> settlements) {
			return this.limiter.settle(settlements);
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
			this.limiter.reset(policy, subject);
		}

	}

}
