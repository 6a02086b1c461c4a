package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter over HTTP against real Redis: exact headers, problem+json rejections, keys, tiers, cost, shadow mode
 * and the annotation.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class RateLimitHttpIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@Autowired
	private RateLimiter limiter;

	@BeforeEach
	void flush() {
		FreshState.start(this.connectionFactory, this.limiter);
	}

	@Test
	void allowedResponsesCarryExactIetfAndLegacyHeaders() throws Exception {
		long before = System.currentTimeMillis() / 1000;
		HttpResponse<String> first = get("/hello", Map.of());
		long after = System.currentTimeMillis() / 1000;
		assertThat(first.statusCode()).isEqualTo(200);
		List<StructuredFields.Item> policy = StructuredFields.parseList(header(first, "RateLimit-Policy"));
		assertThat(policy).containsExactly(new StructuredFields.Item("hello", Map.<String, Object>of("q", 3L, "w", 60L)));
		List<StructuredFields.Item> limit = StructuredFields.parseList(header(first, "RateLimit"));
		assertThat(limit).hasSize(1);
		assertThat(limit.get(0).value()).isEqualTo("hello");
		assertThat(limit.get(0).parameters()).containsEntry("r", 2L);
		assertThat(limit.get(0).parameters().get("t")).isEqualTo(20L);
		assertThat(header(first, "X-RateLimit-Limit")).isEqualTo("3");
		assertThat(header(first, "X-RateLimit-Remaining")).isEqualTo("2");
		// t (20 s) after the request was decided, some time between before and after
		assertThat(Long.parseLong(header(first, "X-RateLimit-Reset"))).isBetween(before + 20, after + 22);
		assertThat(first.headers().firstValue("Retry-After")).isEmpty();
		assertThat(StructuredFields.parseList(header(get("/hello", Map.of()), "RateLimit")).get(0).parameters())
			.containsEntry("r", 1L);
	}

	@Test
	void deniedRequestGetsProblemJsonWithRetryAfter() throws Exception {
		long start = System.nanoTime();
		for (int i = 0; i < 3; i++) {
			assertThat(get("/hello", Map.of()).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> denied = get("/hello", Map.of());
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(header(denied, "Content-Type")).startsWith("application/problem+json");
		// GCRA 3 per minute: the fourth request, d <= elapsed seconds after the first, may come 20 - d seconds later,
		// rounded up: 20 whenever d < 1 (a loaded machine may take longer to send the four)
		long retryAfter = Long.parseLong(header(denied, "Retry-After"));
		assertThat(retryAfter).isBetween(Math.max(1, (long) Math.ceil(20 - elapsed)), 20L);
		if (elapsed < 1) {
			assertThat(retryAfter).isEqualTo(20);
		}
		assertThat(StructuredFields.parseList(header(denied, "RateLimit")).get(0).parameters()).containsEntry("r", 0L);
		assertThat(header(denied, "X-RateLimit-Remaining")).isEqualTo("0");
		JsonNode body = json.readTree(denied.body());
		assertThat(body.get("type").asString()).isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(body.get("title").asString()).isEqualTo("Request cannot be satisfied as assigned quota has been exceeded");
		assertThat(body.get("status").asInt()).isEqualTo(429);
		assertThat(body.get("instance").asString()).isEqualTo("/hello");
		assertThat(body.get("detail").asString()).contains("'hello'").contains(retryAfter + " seconds");
		assertThat(body.get("violated-policies").get(0).asString()).isEqualTo("hello");
		assertThat(body.get("retryAfter").asLong()).isEqualTo(retryAfter);
	}

	@Test
	void retryAfterIsRoundedUp() throws Exception {
		long start = System.nanoTime();
		assertThat(get("/retry", Map.of()).statusCode()).isEqualTo(200);
		assertThat(get("/retry", Map.of()).statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/retry", Map.of());
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied.statusCode()).isEqualTo(429);
		// GCRA 2 per 30 s: the third request, d <= elapsed seconds after the first, may come 15 - d seconds later,
		// which rounds up to ceil(15 - d): 15 whenever d < 1 (rounding down would give 14). The rounding itself is
		// proven on exact durations by ProblemDetailRejectionHandlerTests; here Redis's clock runs on its own.
		long retryAfter = Long.parseLong(header(denied, "Retry-After"));
		assertThat(retryAfter).isBetween(Math.max(1, (long) Math.ceil(15 - elapsed)), 15L);
		if (elapsed < 1) {
			assertThat(retryAfter).isEqualTo(15);
		}
	}

	@Test
	void unmatchedRequestsAreNotLimitedAndCarryNoHeaders() throws Exception {
		HttpResponse<String> response = get("/open", Map.of());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
		assertThat(response.headers().firstValue("X-RateLimit-Limit")).isEmpty();
	}

	@Test
	void compositeKeysSeparateTenantsAndEndpoints() throws Exception {
		for (int i = 0; i < 2; i++) {
			assertThat(get("/composite/a", Map.of("X-Tenant", "acme")).statusCode()).isEqualTo(200);
		}
		assertThat(get("/composite/a", Map.of("X-Tenant", "acme")).statusCode()).isEqualTo(429);
		assertThat(get("/composite/b", Map.of("X-Tenant", "acme")).statusCode()).as("other endpoint").isEqualTo(200);
		assertThat(get("/composite/a", Map.of("X-Tenant", "globex")).statusCode()).as("other tenant").isEqualTo(200);
	}

	@Test
	void tiersGiveEachPlanItsLimitAndUnknownPlansTheRuleLimit() throws Exception {
		String key = "key-" + UUID.randomUUID();
		HttpResponse<String> pro = get("/search", Map.of("X-API-Key", key, "X-Plan", "pro"));
		assertThat(StructuredFields.parseList(header(pro, "RateLimit-Policy")).get(0).parameters()).containsEntry("q", 100L);
		assertThat(header(pro, "X-RateLimit-Remaining")).isEqualTo("99");
		HttpResponse<String> unknown = get("/search", Map.of("X-API-Key", "other-" + key, "X-Plan", "platinum"));
		assertThat(header(unknown, "X-RateLimit-Limit")).isEqualTo("10");
		HttpResponse<String> missing = get("/search", Map.of("X-API-Key", "third-" + key));
		assertThat(header(missing, "X-RateLimit-Limit")).isEqualTo("10");
	}

	@Test
	void costComesFromTheRequestAndNeverBelowOne() throws Exception {
		String key = "cost-" + UUID.randomUUID();
		assertThat(header(get("/search?pageSize=4", Map.of("X-API-Key", key)), "X-RateLimit-Remaining")).isEqualTo("6");
		assertThat(header(get("/search?pageSize=abc", Map.of("X-API-Key", key)), "X-RateLimit-Remaining")).isEqualTo("5");
		assertThat(header(get("/search?pageSize=-7", Map.of("X-API-Key", key)), "X-RateLimit-Remaining")).isEqualTo("4");
		HttpResponse<String> tooBig = get("/search?pageSize=5", Map.of("X-API-Key", key));
		assertThat(tooBig.statusCode()).isEqualTo(429);
		assertThat(header(tooBig, "X-RateLimit-Remaining")).isEqualTo("4");
		HttpResponse<String> never = get("/search?pageSize=99999999999999999999", Map.of("X-API-Key", key));
		assertThat(never.statusCode()).isEqualTo(429);
		assertThat(header(get("/search?pageSize=4", Map.of("X-API-Key", key)), "X-RateLimit-Remaining")).isEqualTo("0");
	}

	@Test
	void requestCostingMoreThanTheLimitCanEverAdmitSaysSo() throws Exception {
		HttpResponse<String> never = get("/search?pageSize=11", Map.of("X-API-Key", "never-" + UUID.randomUUID()));
		assertThat(never.statusCode()).isEqualTo(429);
		assertThat(never.headers().firstValue("Retry-After")).isEmpty();
		assertThat(json.readTree(never.body()).get("detail").asString()).contains("can ever admit");
	}

	@Test
	void shadowRuleNeverBlocksAndSendsNoHeaders() throws Exception {
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = get("/shadow", Map.of());
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(StructuredFields.parseList(header(response, "RateLimit-Policy")))
				.extracting(StructuredFields.Item::value)
				.containsExactly("shadow-enforced");
		}
		assertThat(get("/shadow", Map.of()).statusCode()).as("the enforced rule still applies").isEqualTo(429);
	}

	@Test
	void annotatedControllerIsLimitedWithTheSameResponse() throws Exception {
		assertThat(get("/annotated", Map.of()).statusCode()).isEqualTo(200);
		HttpResponse<String> second = get("/annotated", Map.of());
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(header(second, "X-RateLimit-Remaining")).isEqualTo("0");
		assertThat(StructuredFields.parseList(header(second, "RateLimit")).get(0).value()).isEqualTo("annotated");
		HttpResponse<String> denied = get("/annotated", Map.of());
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(header(denied, "Content-Type")).startsWith("application/problem+json");
		assertThat(header(denied, "Retry-After")).isNotBlank();
		assertThat(json.readTree(denied.body()).get("violated-policies").get(0).asString()).isEqualTo("annotated");
	}

	@Test
	void annotatedServiceUsesTheNamedRuleWithAKeyFromItsArguments() throws Exception {
		assertThat(get("/reports/alice", Map.of()).body()).isEqualTo("report for alice");
		assertThat(get("/reports/alice", Map.of()).statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/reports/alice", Map.of());
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(json.readTree(denied.body()).get("violated-policies").get(0).asString()).isEqualTo("reports");
		assertThat(get("/reports/bob", Map.of()).statusCode()).as("another user").isEqualTo(200);
	}

	private HttpResponse<String> get(String path, Map<String, String> headers) {
		return new TestHttp(this.port).get(path, headers);
	}

	private static String header(HttpResponse<?> response, String name) {
		return TestHttp.header(response, name);
	}

}
