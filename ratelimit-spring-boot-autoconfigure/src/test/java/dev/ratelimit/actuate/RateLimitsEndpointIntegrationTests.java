package dev.ratelimit.actuate;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.autoconfigure.RateLimitRulesReloader;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.HttpTestApplication;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code ratelimits} endpoint over HTTP against real Redis, override sharing between two application contexts,
 * and hot reload of the rules.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-http-test", "management.endpoints.web.exposure.include=*",
				"management.endpoint.health.show-details=always" })
class RateLimitsEndpointIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	@Autowired
	private RateLimitRules rules;

	@Autowired
	private ConfigurableEnvironment environment;

	@Autowired
	private ConfigurableApplicationContext context;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void clean() throws Exception {
		FreshState.start(this.connectionFactory, this.limiter);
		this.rules.replaceOverrides(Map.of());
	}

	@Test
	void listsEveryRuleWithItsValuesTheStoreAndItsState() throws Exception {
		JsonNode body = json.readTree(call("GET", "/actuator/ratelimits", (String) null).body());
		assertThat(body.get("store").asString()).isEqualTo("redis");
		assertThat(body.get("state").asString()).isEqualTo("redis");
		assertThat(body.get("circuit").asString()).isEqualTo("closed");
		assertThat(body.get("nodes").isNull()).as("masters are listed in a Redis Cluster only").isTrue();
		JsonNode hello = rule(body, "hello");
		assertThat(hello.get("algorithm").asString()).isEqualTo("gcra");
		assertThat(hello.get("limit").asLong()).isEqualTo(3);
		assertThat(hello.get("period").asString()).isEqualTo("PT1M");
		assertThat(hello.get("source").asString()).isEqualTo("configuration");
		assertThat(rule(body, "search").get("tiers").get("pro").asLong()).isEqualTo(100);
		assertThat(call("GET", "/actuator/ratelimits/hello", (String) null).statusCode()).isEqualTo(200);
		assertThat(call("GET", "/actuator/ratelimits/nope", (String) null).statusCode()).isEqualTo(404);
	}

	@Test
	void showsOneSubjectWithoutConsumingAndResetsIt() throws Exception {
		assertThat(subject("hello", "127.0.0.1").get("remaining").asLong()).isEqualTo(3);
		assertThat(subject("hello", "127.0.0.1").get("remaining").asLong()).as("inspecting consumes nothing").isEqualTo(3);
		for (int i = 0; i < 4; i++) {
			call("GET", "/hello", (String) null);
		}
		JsonNode exhausted = subject("hello", "127.0.0.1");
		assertThat(exhausted.get("remaining").asLong()).isZero();
		assertThat(Duration.parse(exhausted.get("retryAfter").asString())).isPositive()
			.isLessThanOrEqualTo(Duration.ofSeconds(20));
		assertThat(call("GET", "/hello", (String) null).statusCode()).isEqualTo(429);
		HttpResponse<String> reset = call("DELETE", "/actuator/ratelimits/hello/127.0.0.1", (String) null);
		assertThat(reset.statusCode()).isEqualTo(200);
		assertThat(json.readTree(reset.body()).get("remaining").asLong()).isEqualTo(3);
		assertThat(call("GET", "/hello", (String) null).statusCode()).as("reset also forgets the deny cache").isEqualTo(200);
		assertThat(call("GET", "/actuator/ratelimits/nope/127.0.0.1", (String) null).statusCode()).isEqualTo(404);
		assertThat(call("DELETE", "/actuator/ratelimits/nope/127.0.0.1", (String) null).statusCode()).isEqualTo(404);
	}

	@Test
	void inspectingUsesTheAskedTierAndCountsNothing() throws Exception {
		send("/search", Map.of("X-API-Key", "tiered", "X-Plan", "pro"));
		JsonNode pro = json.readTree(call("GET", "/actuator/ratelimits/search/tiered?tier=pro", (String) null).body());
		assertThat(pro.get("limit").asLong()).isEqualTo(100);
		assertThat(pro.get("remaining").asLong()).isEqualTo(99);
		assertThat(call("GET", "/actuator/ratelimits/search/tiered?tier=platinum", (String) null).statusCode())
			.isEqualTo(404);
		for (int i = 0; i < 6; i++) {
			call("GET", "/shadow", (String) null);
		}
		double denied = deniedCount("shadow-enforced");
		for (int i = 0; i < 3; i++) {
			JsonNode state = subject("shadow-enforced", "127.0.0.1");
			assertThat(state.get("remaining").asLong()).isZero();
			assertThat(Duration.parse(state.get("retryAfter").asString())).isPositive();
		}
		assertThat(deniedCount("shadow-enforced")).as("inspections are not requests").isEqualTo(denied);
	}

	private double deniedCount(String rule) throws Exception {
		JsonNode metric = json.readTree(call("GET", "/actuator/metrics/ratelimit.requests?tag=rule:" + rule
				+ "&tag=outcome:denied", (String) null).body());
		return metric.get("measurements").get(0).get("value").asDouble();
	}

	@Test
	void compositeSubjectsWithSlashesCanBeInspected() throws Exception {
		send("/composite/a", Map.of("X-Tenant", "acme"));
		JsonNode state = subject("composite", "acme|GET /composite/a");
		assertThat(state.get("subject").asString()).isEqualTo("acme|GET /composite/a");
		assertThat(state.get("remaining").asLong()).isEqualTo(1);
	}

	/**
	 * An override made through one instance is in effect there at once, and on another instance sharing Redis after
	 * that instance's own refresh (every 500 ms by default): awaited as a condition, since a loaded machine may run the
	 * refresh of a just started instance late.
	 */
	@Test
	void overridesApplyHereAndOnEveryInstanceSharingRedisByTheirRefresh(RedisEndpoint redis) throws Exception {
		try (ConfigurableApplicationContext other = new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0", "spring.data.redis.url=" + redis.uri())
			.run()) {
			RateLimitRules otherRules = other.getBean(RateLimitRules.class);
			HttpResponse<String> response = call("POST", "/actuator/ratelimits/hello", "{\"limit\": 1, \"period\": \"30s\"}");
			assertThat(response.statusCode()).isEqualTo(200);
			JsonNode overridden = json.readTree(response.body());
			assertThat(overridden.get("limit").asLong()).isEqualTo(1);
			assertThat(overridden.get("source").asString()).isEqualTo("override");
			assertThat(overridden.get("configured").get("limit").asLong()).isEqualTo(3);
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
				.until(() -> otherRules.get("hello").orElseThrow().policy().limit() == 1);
			assertThat(call("GET", "/hello", (String) null).statusCode()).isEqualTo(200);
			assertThat(call("GET", "/hello", (String) null).statusCode()).as("the override is in effect").isEqualTo(429);
			assertThat(call("DELETE", "/actuator/ratelimits/hello", (String) null).statusCode()).isEqualTo(200);
			assertThat(this.rules.get("hello").orElseThrow().policy().limit()).isEqualTo(3);
			await().atMost(Duration.ofSeconds(30)).until(() -> otherRules.get("hello").orElseThrow().policy().limit() == 3);
		}
	}

	@Test
	void invalidOverridesGetBadRequestWithTheReason() throws Exception {
		assertBadRequest("{\"limit\": 0}", "limit must be at least 1");
		assertBadRequest("{\"period\": \"soon\"}", "not a duration");
		assertBadRequest("{\"mode\": \"loud\"}", "not enforce or shadow");
		assertBadRequest("{}", "at least one of");
		assertBadRequest("{\"limt\": 5}", "unknown field 'limt'; the fields are limit, period, burst, mode");
		assertBadRequest("{\"limit\": 5, \"brust\": 2}", "unknown field 'brust'");
		HttpResponse<String> burstOnWindow = call("POST", "/actuator/ratelimits/composite", "{\"burst\": 5}");
		assertThat(burstOnWindow.statusCode()).isEqualTo(400);
		assertThat(json.readTree(burstOnWindow.body()).get("reason").asString()).contains("burst has no meaning");
		assertThat(call("POST", "/actuator/ratelimits/nope", "{\"limit\": 5}").statusCode()).isEqualTo(404);
		assertThat(call("DELETE", "/actuator/ratelimits/nope", (String) null).statusCode()).isEqualTo(404);
		assertThat(this.rules.get("hello").orElseThrow().policy().limit()).isEqualTo(3);
	}

	@Test
	void topOffendersShowTheSubjectsDeniedMost() throws Exception {
		for (int i = 0; i < 6; i++) {
			call("GET", "/hello", (String) null);
		}
		JsonNode offenders = json.readTree(call("GET", "/actuator/ratelimits/offenders", (String) null).body());
		JsonNode hello = offenders.get("rules").get("hello");
		assertThat(hello.get(0).get("subject").asString()).isEqualTo("127.0.0.1");
		assertThat(hello.get(0).get("denials").asLong()).isGreaterThanOrEqualTo(3);
	}

	@Test
	void topOffendersShowCompositeSubjectsReadablyAndLongOnesCut() throws Exception {
		String longTenant = "tenant-" + "a".repeat(100);
		for (int i = 0; i < 4; i++) {
			send("/composite/a", Map.of("X-Tenant", "acme"));
			send("/composite/a", Map.of("X-Tenant", longTenant + "-1"));
			send("/composite/a", Map.of("X-Tenant", longTenant + "-2"));
		}
		JsonNode offenders = json.readTree(call("GET", "/actuator/ratelimits/offenders", (String) null).body());
		JsonNode composite = offenders.get("rules").get("composite");
		assertThat(composite).hasSize(3);
		assertThat(composite).extracting((offender) -> offender.get("denials").asLong()).containsOnly(2L);
		assertThat(composite).extracting((offender) -> offender.get("subject").asString())
			.contains("acme|GET /composite/a")
			.filteredOn((subject) -> subject.startsWith(longTenant.substring(0, 64) + "\u2026 ~"))
			.as("two long subjects with the same beginning stay apart")
			.hasSize(2)
			.doesNotHaveDuplicates();
	}

	@Test
	void healthShowsTheStoreAndCircuit() throws Exception {
		JsonNode health = json.readTree(call("GET", "/actuator/health/ratelimit", (String) null).body());
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("details").get("state").asString()).isEqualTo("redis");
		assertThat(health.get("details").get("circuit").asString()).isEqualTo("closed");
	}

	@Test
	void metricsAreExposedByRuleAndOutcome() throws Exception {
		for (int i = 0; i < 4; i++) {
			call("GET", "/hello", (String) null);
		}
		JsonNode denied = json.readTree(
				call("GET", "/actuator/metrics/ratelimit.requests?tag=rule:hello&tag=outcome:denied", (String) null).body());
		assertThat(denied.get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(1);
	}

	@Test
	void changingALimitInTheEnvironmentTakesEffectOnTheNextRequestAndInvalidChangesAreRefused() throws Exception {
		MapPropertySource change = new MapPropertySource("test-change", new java.util.HashMap<>());
		this.environment.getPropertySources().addFirst(change);
		try {
			change.getSource().put("ratelimit.rules.hello.limit", "1");
			this.context.publishEvent(new EnvironmentChangeEvent(this.context, Set.of("ratelimit.rules.hello.limit")));
			assertThat(call("GET", "/hello", (String) null).statusCode()).isEqualTo(200);
			HttpResponse<String> second = call("GET", "/hello", (String) null);
			assertThat(second.statusCode()).isEqualTo(429);
			assertThat(second.headers().firstValue("X-RateLimit-Limit")).hasValue("1");

			change.getSource().put("ratelimit.rules.hello.limit", "0");
			boolean reloaded = this.context.getBean(RateLimitRulesReloader.class)
				.reload(Set.of("ratelimit.rules.hello.limit"));
			assertThat(reloaded).isFalse();
			assertThat(this.rules.get("hello").orElseThrow().policy().limit()).as("previous rules stay").isEqualTo(1);
			assertThat(send("/composite/b", Map.of("X-Tenant", "t")).statusCode()).isEqualTo(200);
		}
		finally {
			this.environment.getPropertySources().remove("test-change");
			this.context.getBean(RateLimitRulesReloader.class).reload(Set.of("ratelimit.rules.hello.limit"));
		}
		assertThat(this.rules.get("hello").orElseThrow().policy().limit()).isEqualTo(3);
	}

	private void assertBadRequest(String body, String reason) throws Exception {
		HttpResponse<String> response = call("POST", "/actuator/ratelimits/hello", body);
		assertThat(response.statusCode()).as(body).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("reason").asString()).contains(reason);
	}

	private JsonNode subject(String rule, String key) throws Exception {
		HttpResponse<String> response = call("GET", "/actuator/ratelimits/" + rule + "/"
				+ key.replace("|", "%7C").replace(" ", "%20"), (String) null);
		assertThat(response.statusCode()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static JsonNode rule(JsonNode body, String name) {
		for (JsonNode rule : body.get("rules")) {
			if (rule.get("name").asString().equals(name)) {
				return rule;
			}
		}
		throw new AssertionError("no rule " + name);
	}

	private HttpResponse<String> call(String method, String path, String body) throws IOException, InterruptedException {
		return call(method, path, body, Map.of());
	}

	private HttpResponse<String> send(String path, Map<String, String> headers) throws IOException, InterruptedException {
		return call("GET", path, null, headers);
	}

	private HttpResponse<String> call(String method, String path, String body, Map<String, String> headers) {
		return new TestHttp(this.port).call(method, path, body, headers);
	}

}
