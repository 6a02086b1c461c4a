package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.Windows;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Requests that wait for a reserved slot instead of being rejected ({@code max-wait}), on two instances of an
 * application sharing one Redis: their completions are shaped to the rule's rate in arrival order, the waiters of a
 * rule are bounded per instance ({@code max-waiting}), and a caller that stops waiting gives its slot back. Completion times are read where the controller handles each request, on the JVM's monotonic clock that both
 * instances share.
 */
@RedisStandaloneTest
class WaitingIntegrationTests {

	/** How late a timer may resume a waiting request (thread scheduling, the container's dispatch). */
	private static final Duration GRANULARITY = Duration.ofMillis(50);

	/** How far apart two requests are sent for their arrival order to be certain (connections are set up first). */
	private static final Duration ORDER_GRANULARITY = Duration.ofMillis(100);

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private final String queue = UUID.randomUUID().toString();

	@BeforeAll
	static void start() {
		first = start(RedisStandaloneExtension.shared().uri());
		second = start(RedisStandaloneExtension.shared().uri());
	}

	@AfterAll
	static void stop() {
		first.close();
		second.close();
	}

	/**
	 * 50 concurrent requests against a GCRA rule of 10 per second without burst, {@code max-wait: 5s}, sent to two
	 * instances in turn, 10 ms apart: every one succeeds, no more than 10 complete in any second, the whole takes
	 * 50/rate within 10%, and they complete in the order they arrived (requests sent at least 100 ms apart never
	 * overtake each other). The slots as scheduled never put more than 10 in a period; when the requests actually ran, a
	 * machine under load may run one late next to its successor, so a window of one period may see 11.
	 */
	@Test
	void concurrentRequestsWaitForSlotsSpacedAtTheRuleRateInArrivalOrder() throws Exception {
		int requests = 50;
		long spacingNanos = TimeUnit.MILLISECONDS.toNanos(10);
		// a first request of each instance on a queue of its own: the measured first request is not delayed, so its
		// slot is when it is handled, which a cold request path (first use of the filters' classes) makes late
		for (ConfigurableApplicationContext instance : List.of(first, second)) {
			new TestHttp(port(instance)).getAsync("/waiting/shaped", Map.of("X-Queue", UUID.randomUUID().toString()))
				.get(30, TimeUnit.SECONDS);
		}
		ScheduledExecutorService sender = Executors.newSingleThreadScheduledExecutor();
		List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
		long startNanos = System.nanoTime();
		try {
			for (int i = 0; i < requests; i++) {
				CompletableFuture<HttpResponse<String>> response = new CompletableFuture<>();
				int port = port((i % 2 == 0) ? first : second);
				sender.schedule(() -> new TestHttp(port).getAsync("/waiting/shaped", Map.of("X-Queue", this.queue))
					.whenComplete((done, ex) -> {
						if (ex != null) {
							response.completeExceptionally(ex);
						}
						else {
							response.complete(done);
						}
					}), i * spacingNanos, TimeUnit.NANOSECONDS);
				responses.add(response);
			}
			long[] handledAt = new long[requests];
			long[] slots = new long[requests];
			for (int i = 0; i < requests; i++) {
				HttpResponse<String> response = responses.get(i).get(30, TimeUnit.SECONDS);
				assertThat(response.statusCode()).as("request %d", i).isEqualTo(200);
				String[] times = response.body().split(" ");
				handledAt[i] = Long.parseLong(times[0]);
				slots[i] = Long.parseLong(times[1]);
			}
			Arrays.sort(slots);
			long[] sorted = handledAt.clone();
			Arrays.sort(sorted);
			long period = TimeUnit.SECONDS.toNanos(1);
			StringBuilder times = new StringBuilder();
			for (long each : sorted) {
				times.append((each - startNanos) / 1_000_000).append(' ');
			}
			System.out.printf("shaping: handled at (ms after the first send) %s; at most %d in a window of 1 s"
					+ " (slots: %d)%n", times, Windows.mostInAnyWindow(sorted, period), Windows.mostInAnyWindow(slots, period));
			// the slots as the instances scheduled them: spaced by Redis, exact up to the reply's way back
			assertThat(Windows.mostInAnyWindow(slots, period - GRANULARITY.toNanos()))
				.as("slots in any window of the period (less the scheduling granularity)")
				.isLessThanOrEqualTo(10);
			// when they ran: a loaded machine may run one late, next to its successor
			assertThat(Windows.mostInAnyWindow(sorted, period - GRANULARITY.toNanos()))
				.as("completions in any window of the period (less the scheduling granularity)")
				.isLessThanOrEqualTo(11);
			double total = (sorted[requests - 1] - startNanos) / 1e9;
			assertThat(total).as("seconds for 50 requests at 10/s").isBetween(4.5, 5.5);
			for (int i = 0; i < requests; i++) {
				for (int j = i + 1; j < requests; j++) {
					if ((j - i) * spacingNanos >= ORDER_GRANULARITY.toNanos()) {
						assertThat(handledAt[i]).as("request %d, sent before %d, is served first", i, j)
							.isLessThan(handledAt[j]);
					}
				}
			}
			Timer waits = first.getBean(MeterRegistry.class).get("ratelimit.wait").tag("rule", "shaped").timer();
			assertThat(waits.count()).as("every admitted request of the rule is timed").isGreaterThanOrEqualTo(25);
			assertThat(waits.max(TimeUnit.MILLISECONDS)).as("the longest wait").isGreaterThan(4_000);
		}
		finally {
			sender.shutdownNow();
		}
	}

	/**
	 * A rule of one request per 2 s whose requests may wait up to a minute, but at most 5 at once per instance: a
	 * first request takes the free slot at once; of 19 concurrent requests after it, 5 wait for theirs (2, 4, ... 10 s
	 * away) and the 14 others, whose slots would be within the minute too, are rejected at once with
	 * {@code Retry-After}: answered while the 5 still wait. Every one of the 19 needs a slot that is not free, so none
	 * holds a place only while it is evaluated; the first waiter's slot, 2 s away, is the time a loaded machine has to
	 * answer the 14.
	 */
	@Test
	void requestsBeyondMaxWaitingAreRejectedAtOnce() throws Exception {
		TestHttp http = new TestHttp(port(first));
		Map<String, String> headers = Map.of("X-Queue", this.queue);
		assertThat(http.get("/waiting/five", headers).statusCode()).as("the first, at once").isEqualTo(200);
		long firstAdmittedNanos = System.nanoTime();
		List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
		for (int i = 0; i < 19; i++) {
			responses.add(http.getAsync("/waiting/five", headers));
		}
		await("14 requests answered").atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> responses.stream().filter(CompletableFuture::isDone).count() >= 14);
		long answeredNanos = System.nanoTime();
		int waiting = filter(first).waiting("queue-of-five");
		List<HttpResponse<String>> answered = new ArrayList<>();
		List<CompletableFuture<HttpResponse<String>>> waiters = new ArrayList<>();
		for (CompletableFuture<HttpResponse<String>> response : responses) {
			if (response.isDone()) {
				answered.add(response.get());
			}
			else {
				waiters.add(response);
			}
		}
		System.out.printf("max-waiting: 14 answered %d ms after the first was admitted%n",
				TimeUnit.NANOSECONDS.toMillis(answeredNanos - firstAdmittedNanos));
		assertThat(answered).as("answered before the first waiter's slot").hasSize(14);
		for (HttpResponse<String> response : answered) {
			assertThat(response.statusCode()).as("answered at once").isEqualTo(429);
			assertThat(TestHttp.header(response, "Retry-After")).isNotBlank();
		}
		assertThat(waiting).as("five waiting meanwhile").isEqualTo(5);
		for (CompletableFuture<HttpResponse<String>> waiter : waiters) {
			assertThat(waiter.get(30, TimeUnit.SECONDS).statusCode()).as("a waiter, at its slot").isEqualTo(200);
		}
		assertThat(filter(first).waiting("queue-of-five")).as("no place left taken").isZero();
	}

	/**
	 * Under the yml rule {@code slow-queue} (1 per 5 s), used from code by name through the application's
	 * {@link RateLimiter}: three callers reserve the next slots; the second gives up its wait (its future is
	 * cancelled). Its reservation is released: the rule's state in Redis (GCRA's theoretical arrival time) moves back
	 * by one interval, so the next caller to reserve takes the slot 5 s sooner than without the release, while the
	 * others keep theirs. When every waiter has given up, the state is what the one admitted call left.
	 */
	@Test
	void aCallerThatStopsWaitingReleasesItsSlotAndTheNextReservationMovesUp() throws Exception {
		RateLimiter limiter = first.getBean(RateLimiter.class);
		RateLimitPolicy policy = first.getBean(RateLimitRules.class).get("slow-queue").orElseThrow().policy();
		String key = "rl-http:{slow-queue:" + this.queue + "}";
		Duration maxWait = Duration.ofMinutes(1);
		assertThat(limiter.acquire(policy, this.queue, 1, maxWait)).isTrue();
		long afterAdmitted = tat(key);
		long interval = TimeUnit.SECONDS.toMicros(5);
		// acquireAsync and cancelling do not wait for Redis: await the state they leave there
		CompletableFuture<Boolean> waiting = limiter.acquireAsync(policy, this.queue, 1, maxWait);
		CompletableFuture<Boolean> gone = limiter.acquireAsync(policy, this.queue, 1, maxWait);
		awaitTat(key, afterAdmitted + 2 * interval);
		gone.cancel(false);
		awaitTat(key, afterAdmitted + interval);
		CompletableFuture<Boolean> next = limiter.acquireAsync(policy, this.queue, 1, maxWait);
		awaitTat(key, afterAdmitted + 2 * interval);
		assertThat(waiting).isNotDone();
		next.cancel(false);
		waiting.cancel(false);
		awaitTat(key, afterAdmitted);
		assertThat(tat(key)).as("moved back by one interval per cancelled reservation, no more").isEqualTo(afterAdmitted);
	}

	private static void awaitTat(String key, long expected) {
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(tat(key)).isEqualTo(expected));
	}

	private static long tat(String key) {
		RedisConnectionFactory factory = first.getBean(RedisConnectionFactory.class);
		try (var connection = factory.getConnection()) {
			byte[] value = connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
			return (value != null) ? Long.parseLong(new String(value, StandardCharsets.US_ASCII)) : 0;
		}
	}

	private static ConfigurableApplicationContext start(String redisUri) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0", "spring.data.redis.url=" + redisUri,
					"server.shutdown=immediate")
			.run();
	}

	private static RateLimitFilter filter(ConfigurableApplicationContext context) {
		return (RateLimitFilter) context.getBean("rateLimitFilterRegistration", FilterRegistrationBean.class)
			.getFilter();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
