package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.micrometer.core.instrument.MeterRegistry;
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
 * Which status a denial answers with, over HTTP against real Redis: a full {@code global} concurrency cap is the
 * server's state (503), a full per-client cap the client's (429), {@code status} overrides either and a rate's, 429
 * wins when both kinds deny, and the {@code @RateLimited} exception handler and a replaced rejection handler see the
 * same status as the filter. Every denial carries a short {@code Retry-After} and a problem body.
 */
@RedisStandaloneTest
@SpringBootTest(classes = StatusTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-status-test")
class DenialStatusIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private StatusTestApplication.Held held;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private MeterRegistry registry;

	private TestHttp http;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void forgetState() {
		this.http = new TestHttp(this.port);
		try (var connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	@AfterEach
	void letEverythingGo() {
		this.held.requests.forEach((request) -> request.setResult("released"));
		this.held.calls.forEach((call) -> call.complete("released"));
	}

	@Test
	void aFullGlobalCapAnswers503WithAShortRetryAfterAndItsLeasesShowInTheActuator() throws Exception {
		CompletableFuture<HttpResponse<String>> first = this.http.getAsync("/status/global/hold", Map.of());
		DeferredResult<String> holding = heldRequest(first);
		HttpResponse<String> denied = this.http.get("/status/global/hold");
		assertDenied(denied, 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity", "server-cap");

		JsonNode subject = json.readTree(this.http.get("/actuator/ratelimits/server-cap/global").body());
		assertThat(subject.get("limit").asLong()).isEqualTo(1);
		assertThat(subject.get("remaining").asLong()).isZero();
		JsonNode leases = subject.get("leases");
		assertThat(leases.get("held").asLong()).isEqualTo(1);
		assertThat(Duration.parse(leases.get("nextExpiry").asString())).isPositive()
			.isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(leases.get("leaseTimeout").asString()).isEqualTo("PT1H");
		assertThat(json.readTree(this.http.get("/actuator/ratelimits/server-cap/global").body()).get("leases")
			.get("held").asLong()).as("inspecting acquires nothing").isEqualTo(1);
		assertThat(gauge("ratelimit.concurrency.in.flight", "server-cap")).isEqualTo(1);

		holding.setResult("done");
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(json
			.readTree(this.http.get("/actuator/ratelimits/server-cap/global").body()).get("leases").get("held")
			.asLong()).isZero());
		assertThat(gauge("ratelimit.concurrency.in.flight", "server-cap")).isZero();
		assertThat(counter("ratelimit.concurrency.leases.released", "server-cap")).isPositive();
	}

	@Test
	void aFullPerClientCapAnswers429AndLeavesOtherClientsAlone() throws Exception {
		heldRequest(this.http.getAsync("/status/client/hold", Map.of("X-Client", "c1")));
		HttpResponse<String> denied = this.http.get("/status/client/hold", Map.of("X-Client", "c1"));
		assertDenied(denied, 429, "https://iana.org/assignments/http-problem-types#quota-exceeded", "client-cap");
		assertThat(json.readTree(this.http.get("/actuator/ratelimits/rate-503/c1").body()).get("leases").isNull())
			.as("a rate has no leases").isTrue();
		heldRequest(this.http.getAsync("/status/client/hold", Map.of("X-Client", "c2")));
	}

	@Test
	void statusOverridesAPerClientCapsAndARatesDefault() throws Exception {
		heldRequest(this.http.getAsync("/status/override/hold", Map.of("X-Client", "c1")));
		assertDenied(this.http.get("/status/override/hold", Map.of("X-Client", "c1")), 503,
				"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity", "client-cap-503");

		assertThat(this.http.get("/status/rate", Map.of("X-Client", "c1")).statusCode()).isEqualTo(200);
		HttpResponse<String> rate = this.http.get("/status/rate", Map.of("X-Client", "c1"));
		assertThat(rate.statusCode()).isEqualTo(503);
		assertThat(TestHttp.header(rate, StatusTestApplication.SEEN_STATUS)).isEqualTo("503");
		assertThat(Long.parseLong(TestHttp.header(rate, "Retry-After"))).as("a rate's wait, not a cap's")
			.isGreaterThan(60);
	}

	@Test
	void whenAGlobalCapAndAClientsRateBothDenyTheClientGets429() throws Exception {
		heldRequest(this.http.getAsync("/status/both/hold", Map.of("X-Client", "c1")));
		HttpResponse<String> both = this.http.get("/status/both/hold", Map.of("X-Client", "c1"));
		assertThat(both.statusCode()).as("the client can act on its rate").isEqualTo(429);
		assertThat(json.readTree(both.body()).get("violated-policies")).extracting(JsonNode::asString)
			.containsExactlyInAnyOrder("both-cap", "both-rate");
		HttpResponse<String> capOnly = this.http.get("/status/both/hold", Map.of("X-Client", "c2"));
		assertDenied(capOnly, 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity", "both-cap");
	}

	@Test
	void aRateLimitedCallUnderAGlobalCapIsAnswered503ByTheExceptionHandler() throws Exception {
		CompletableFuture<HttpResponse<String>> first = this.http.getAsync("/aspect/cap", Map.of());
		CompletableFuture<String> call = heldCall(first);
		assertDenied(this.http.get("/aspect/cap"), 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity", "aspect-cap");
		endAndCallAgain(first, call, "/aspect/cap", "aspect-cap");
	}

	@Test
	void aRateLimitedCallNamingAnAdaptiveRuleTakesAPlaceUnderItsLimit() throws Exception {
		double deniedBefore = counter("ratelimit.requests", "aspect-adaptive", "denied");
		CompletableFuture<HttpResponse<String>> first = this.http.getAsync("/aspect/adaptive", Map.of());
		CompletableFuture<String> call = heldCall(first);
		assertThat(gauge("ratelimit.concurrency.in.flight", "aspect-adaptive")).isEqualTo(1);
		assertDenied(this.http.get("/aspect/adaptive"), 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity", "aspect-adaptive");
		assertThat(counter("ratelimit.requests", "aspect-adaptive", "denied") - deniedBefore).isOne();
		endAndCallAgain(first, call, "/aspect/adaptive", "aspect-adaptive");
	}

	/** Ends a held call: its place is given back, and the next call is admitted. */
	private void endAndCallAgain(CompletableFuture<HttpResponse<String>> first, CompletableFuture<String> call,
			String path, String rule) throws Exception {
		call.complete("done");
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(gauge("ratelimit.concurrency.in.flight", rule)).isZero());
		CompletableFuture<HttpResponse<String>> again = this.http.getAsync(path, Map.of());
		heldCall(again).complete("again");
		assertThat(again.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
	}

	@Test
	void adaptiveDenialsOfTheFilterAreCountedLikeEveryDenial() throws Exception {
		double allowedBefore = counter("ratelimit.requests", "filter-adaptive", "allowed");
		double deniedBefore = counter("ratelimit.requests", "filter-adaptive", "denied");
		heldRequest(this.http.getAsync("/status/adaptive/hold", Map.of()));
		assertDenied(this.http.get("/status/adaptive/hold"), 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity",
				"filter-adaptive");
		assertDenied(this.http.get("/status/adaptive/hold"), 503, "https://iana.org/assignments/http-problem-types#temporary-reduced-capacity",
				"filter-adaptive");
		assertThat(counter("ratelimit.requests", "filter-adaptive", "allowed") - allowedBefore).isOne();
		assertThat(counter("ratelimit.requests", "filter-adaptive", "denied") - deniedBefore).isEqualTo(2);
	}

	private static void assertDenied(HttpResponse<String> response, int status, String type, String rule) {
		assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
		assertThat(TestHttp.header(response, StatusTestApplication.SEEN_STATUS))
			.as("the replaced rejection handler is asked for the same status").isEqualTo(Integer.toString(status));
		assertThat(TestHttp.header(response, "Retry-After")).as("a short wait").isEqualTo("1");
		assertThat(TestHttp.header(response, "Content-Type")).startsWith("application/problem+json");
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("status").asInt()).isEqualTo(status);
		assertThat(body.get("type").asString()).isEqualTo(type);
		assertThat(body.get("violated-policies")).extracting(JsonNode::asString).containsExactly(rule);
		assertThat(body.get("retryAfter").asInt()).isEqualTo(1);
	}

	/** Returns the request the endpoint holds once it is there, failing if the request was answered instead. */
	private DeferredResult<String> heldRequest(CompletableFuture<HttpResponse<String>> response) {
		await().atMost(Duration.ofSeconds(10)).until(() -> response.isDone() || !this.held.requests.isEmpty());
		assertThat(response).as("admitted and held" + (response.isDone() ? " (answered "
				+ response.join().statusCode() + ")" : "")).isNotDone();
		return this.held.requests.remove();
	}

	private CompletableFuture<String> heldCall(CompletableFuture<HttpResponse<String>> response) {
		await().atMost(Duration.ofSeconds(10)).until(() -> response.isDone() || !this.held.calls.isEmpty());
		assertThat(response).as("admitted and held" + (response.isDone() ? " (answered "
				+ response.join().statusCode() + ")" : "")).isNotDone();
		return this.held.calls.remove();
	}

	private double gauge(String name, String rule) {
		return this.registry.get(name).tag("rule", rule).gauge().value();
	}

	private double counter(String name, String rule) {
		return this.registry.get(name).tag("rule", rule).counter().count();
	}

	private double counter(String name, String rule, String outcome) {
		return this.registry.get(name).tag("rule", rule).tag("outcome", outcome).functionCounter().count();
	}

}
