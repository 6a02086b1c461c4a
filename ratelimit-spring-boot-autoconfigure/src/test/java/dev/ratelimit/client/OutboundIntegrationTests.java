package dev.ratelimit.client;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
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
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.RestClient;
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
	 * none (but right after a stall of this JVM, see {@link #assertNoRefusalButAfterAStall}), and the rate it sees
	 * (calls over the time from the first to the last) is 10/s within 10%.
	 */
	@Test
	void threeInstancesKeepToTheProvidersCapTogether() throws Exception {
		try (ProviderStub provider = ProviderStub.start(10, Duration.ofSeconds(1))) {
			// HttpURLConnection sends on the calling thread: no hand-over between a call's slot and its request
			List<RestClient> clients = instances.stream()
				.map((instance) -> RestClient.builder()
					.requestFactory(new SimpleClientHttpRequestFactory())
					.baseUrl(provider.url())
					.requestInterceptor(instance.getBean(RateLimitedClients.class).interceptor("provider"))
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
			System.out.printf("outbound: %d calls in %.2f s at the provider: %.2f/s; most in any 1 s window: %d%n",
					arrivals.length, seconds, rate, Windows.mostInAnyWindow(arrivals, TimeUnit.SECONDS.toNanos(1)));
			assertNoRefusalButAfterAStall(provider, stalls);
			assertThat(arrivals).hasSize(calls.get());
			assertThat(calls.get()).as("calls made").isGreaterThan(40);
			assertThat(rate).as("calls per second at the provider").isBetween(9.0, 11.0);
		}
	}

	/**
	 * Twenty concurrent calls through a {@code WebClient} with the filter of rule {@code provider}: none is refused
	 * by the provider, and they reach it spaced at the rule's rate (no thread is held while they wait). Until
	 * {@code acquireAsync} makes its store call without blocking (issue 14), the 20 reservations are made one after
	 * another on the subscribing thread while the first calls go out, which delays them by up to tens of
	 * milliseconds on a loaded machine; this provider allows {@link #WEB_CLIENT_JITTER} of it (its window is that much
	 * shorter than a second).
	 */
	@Test
	void webClientCallsWaitForTheirSlotsWithoutAThread() throws Exception {
		try (ProviderStub provider = ProviderStub.start(10, Duration.ofSeconds(1).minus(WEB_CLIENT_JITTER))) {
			WebClient client = WebClient.builder()
				.clientConnector(new JdkClientHttpConnector())
				.baseUrl(provider.url())
				.filter(instances.get(0).getBean(RateLimitedWebClients.class).filter("provider"))
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
			System.out.printf("outbound (WebClient): 20 calls in %.2f s; most in any 1 s window: %d%n", seconds,
					Windows.mostInAnyWindow(arrivals, TimeUnit.SECONDS.toNanos(1)));
			stalls.close();
			assertNoRefusalButAfterAStall(provider, stalls);
			assertThat(statuses).hasSize(20).filteredOn((status) -> status != 429).containsOnly(200);
			assertThat(seconds).as("19 intervals of 108 ms, within 10% (plus any stall of this JVM)")
				.isBetween(1.85, 2.26 + stalls.totalNanos() / 1e9);
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
			assertThat(behind.delay()).as("behind the waiting call").isGreaterThan(Duration.ofMillis(9_000));
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
	 * Asserts that the provider refused no call but right after a stall of this JVM: a call due during a stall leaves
	 * when it ends, next to the calls due after it, however well the limiter spaced their slots; without a stall no
	 * call may be refused.
	 */
	private static void assertNoRefusalButAfterAStall(ProviderStub provider, Stalls stalls) {
		List<Long> refused = provider.refusedAt();
		long window = TimeUnit.SECONDS.toNanos(1);
		System.out.printf("outbound: %d calls refused by the provider; stalls of this JVM: %s%n", refused.size(),
				stalls.describe());
		assertThat(refused).as("calls the provider refused with no stall of this JVM in the second before"
				+ " (gaps between arrivals, ms: %s; stalls: %s)", provider.gaps(), stalls.describe())
			.noneMatch((at) -> !stalls.endedWithin(at, window));
	}

}
