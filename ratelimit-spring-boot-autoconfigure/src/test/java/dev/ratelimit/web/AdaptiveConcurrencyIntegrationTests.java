package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.async.DeferredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code algorithm: adaptive-concurrency} over HTTP, in the real application: the limit follows the latency of the
 * endpoint under steady load, is visible in the metrics and the {@code ratelimits} endpoint, and a full limit
 * answers 503 before any rate rule is consumed.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-http-test", "management.endpoints.web.exposure.include=*" })
class AdaptiveConcurrencyIntegrationTests {

	private static final Log logger = LogFactory.getLog(AdaptiveConcurrencyIntegrationTests.class);

	private static final JsonMapper json = JsonMapper.builder().build();

	/** The max-limit of rule {@code adaptive}. */
	private static final int MAX_LIMIT = 24;

	/**
	 * Clients that send one request after the other: more than half of {@link #MAX_LIMIT}, as Gradient2 learns only
	 * while at least half the limit is used.
	 */
	private static final int CLIENTS = 16;

	@LocalServerPort
	private int port;

	@Autowired
	private AdaptiveEndpoints.Latency latency;

	@Autowired
	private MeterRegistry registry;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	private final ScheduledExecutorService backOff = Executors.newSingleThreadScheduledExecutor();

	private volatile boolean running;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void flush() {
		FreshState.start(this.connectionFactory, this.limiter);
	}

	@AfterEach
	void stop() {
		this.running = false;
		this.backOff.shutdownNow();
	}

	@Test
	void limitFallsWhenLatencyRisesAndRecoversWhenItFalls() throws Exception {
		this.latency.millis.set(10);
		AtomicInteger ok = new AtomicInteger();
		AtomicInteger shed = new AtomicInteger();
		this.running = true;
		for (int i = 0; i < CLIENTS; i++) {
			client(ok, shed);
		}
		long start = System.nanoTime();
		int peak = awaitLimit("rises to its maximum at 10 ms", (limit) -> limit == MAX_LIMIT, Duration.ofSeconds(30));
		long rise = System.nanoTime();

		this.latency.millis.set(200);
		List<Integer> seen = new ArrayList<>();
		int trough = awaitLimit("falls below half its peak at 200 ms", (limit) -> {
			seen.add(limit);
			return limit < peak / 2;
		}, Duration.ofSeconds(30));
		long fall = System.nanoTime();
		assertThat(shed.get()).as("requests beyond the limit are shed with 503").isPositive();

		this.latency.millis.set(10);
		int recovered = awaitLimit("recovers its peak at 10 ms", (limit) -> limit >= peak, Duration.ofSeconds(30));
		long recovery = System.nanoTime();
		logger.info("Adaptive limit: peak " + peak + " after " + millis(start, rise) + " ms at 10 ms; below half ("
				+ trough + ") " + millis(rise, fall) + " ms after the latency rose to 200 ms (seen " + seen
				+ "); back to " + recovered + " " + millis(fall, recovery) + " ms after it returned to 10 ms; "
				+ ok.get() + " answered, " + shed.get() + " shed");

		TestHttp http = new TestHttp(this.port);
		JsonNode metric = json.readTree(
				http.get("/actuator/metrics/ratelimit.adaptive.limit?tag=rule:adaptive").body());
		assertThat(metric.get("measurements").get(0).get("value").asDouble()).isBetween(1.0, (double) MAX_LIMIT);
		JsonNode adaptive = json.readTree(http.get("/actuator/ratelimits").body()).get("adaptive");
		assertThat(adaptive).hasSize(2);
		JsonNode rule = json.readTree(http.get("/actuator/ratelimits/adaptive").body());
		assertThat(rule.get("strategy").asString()).isEqualTo("gradient2");
		assertThat(rule.get("limit").asInt()).isBetween(1, MAX_LIMIT);
		assertThat(rule.get("inFlight").asInt()).isBetween(0, MAX_LIMIT);
		assertThat(rule.get("maxLimit").asInt()).isEqualTo(MAX_LIMIT);

		this.running = false;
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(gauge("ratelimit.concurrency.in.flight"))
			.as("every place is given back").isZero());
	}

	@Test
	void fullLimitAnswers503WithoutConsumingRatesAndARateDenialHoldsNoPlace() throws Exception {
		TestHttp http = new TestHttp(this.port);
		Map<String, String> client = Map.of("X-Client", "c1");
		CompletableFuture<HttpResponse<String>> first = http.getAsync("/tight/hold", client);
		DeferredResult<String> held = held(first, "the first request is admitted");

		HttpResponse<String> shed = http.get("/tight/hold", client);
		assertThat(shed.statusCode()).isEqualTo(503);
		assertThat(TestHttp.header(shed, "Retry-After")).isEqualTo("1");
		assertThat(TestHttp.header(shed, "Content-Type")).startsWith("application/problem+json");
		assertThat(shed.headers().firstValue("RateLimit-Policy")).as("no rate was evaluated").isEmpty();
		JsonNode body = json.readTree(shed.body());
		assertThat(body.get("type").asString()).isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
		assertThat(body.get("status").asInt()).isEqualTo(503);
		assertThat(body.get("violated-policies").get(0).asString()).isEqualTo("tight");
		assertThat(body.get("retryAfter").asInt()).isEqualTo(1);

		held.setResult("held");
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(gauge("ratelimit.concurrency.in.flight",
				"tight")).isZero());
		// the 503 consumed nothing: the second of c1's two requests per hour is still there
		CompletableFuture<HttpResponse<String>> second = http.getAsync("/tight/hold", client);
		held(second, "the 503 consumed no quota: c1's second request is admitted").setResult("held");
		assertThat(second.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);

		HttpResponse<String> overRate = http.get("/tight/hold", client);
		assertThat(overRate.statusCode()).isEqualTo(429);
		assertThat(gauge("ratelimit.concurrency.in.flight", "tight")).as("the 429 gave its place back").isZero();
		CompletableFuture<HttpResponse<String>> other = http.getAsync("/tight/hold", Map.of("X-Client", "c2"));
		held(other, "the place is free for another client").setResult("held");
		assertThat(other.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
	}

	/** Returns the request the endpoint holds once it is there, failing if the request was answered instead. */
	private DeferredResult<String> held(CompletableFuture<HttpResponse<String>> response, String expectation) {
		await().atMost(Duration.ofSeconds(10)).until(() -> response.isDone() || !this.latency.held.isEmpty());
		assertThat(response).as(expectation + (response.isDone() ? " (answered " + response.join().statusCode() + ")"
				: "")).isNotDone();
		return this.latency.held.remove();
	}

	/** One client: the next request when the last is answered, 5 ms after a 503. */
	private void client(AtomicInteger ok, AtomicInteger shed) {
		if (!this.running) {
			return;
		}
		new TestHttp(this.port).getAsync("/adaptive/work", Map.of()).whenComplete((response, failure) -> {
			if (response != null && response.statusCode() == 503) {
				shed.incrementAndGet();
				if (this.running) {
					this.backOff.schedule(() -> client(ok, shed), 5, TimeUnit.MILLISECONDS);
				}
				return;
			}
			if (response != null && response.statusCode() == 200) {
				ok.incrementAndGet();
			}
			client(ok, shed);
		});
	}

	private int awaitLimit(String what, IntPredicate condition, Duration atMost) {
		return await(what).atMost(atMost).pollInterval(Duration.ofMillis(20))
			.until(() -> (int) gauge("ratelimit.adaptive.limit"), condition::test);
	}

	private double gauge(String name) {
		return gauge(name, "adaptive");
	}

	private double gauge(String name, String rule) {
		return this.registry.get(name).tag("rule", rule).gauge().value();
	}

	private static long millis(long from, long to) {
		return TimeUnit.NANOSECONDS.toMillis(to - from);
	}

}
