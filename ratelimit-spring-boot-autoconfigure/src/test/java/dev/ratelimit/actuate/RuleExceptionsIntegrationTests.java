package dev.ratelimit.actuate;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.HttpTestApplication;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Per-subject exceptions over HTTP against real Redis: set through one instance's actuator and in effect on every
 * instance sharing Redis, configured in yml, listed, removed, bounded, and invalid input answered 400. The rule
 * {@code search} (ratelimit-http-test.yml) keys by API key, 10 per hour.
 */
@RedisStandaloneTest
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-http-test", "management.endpoints.web.exposure.include=*",
				RuleExceptionsIntegrationTests.REFRESH, RuleExceptionsIntegrationTests.MAX,
				RuleExceptionsIntegrationTests.CONFIGURED })
class RuleExceptionsIntegrationTests {

	static final String REFRESH = "ratelimit.overrides.refresh-interval=50ms";

	static final String MAX = "ratelimit.exceptions.max-per-rule=3";

	static final String CONFIGURED = "ratelimit.rules.search.exceptions.vip=20";

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	@Autowired
	private RateLimitRules rules;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void clean() {
		FreshState.start(this.connectionFactory, this.limiter);
		this.rules.replaceExceptions(Map.of());
	}

	/**
	 * An exception set through one instance's actuator is in effect there at once and on the other instance after
	 * its refresh, awaited as a condition; requests of the subject on both instances count against the one limit.
	 */
	@Test
	void anExceptionSetThroughOneInstanceGivesItsSubjectItsLimitOnBothWhileOthersKeepTheRules(RedisEndpoint redis)
			throws Exception {
		try (ConfigurableApplicationContext other = new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0", "spring.data.redis.url=" + redis.uri(),
					"management.endpoints.web.exposure.include=*", REFRESH, MAX, CONFIGURED)
			.run()) {
			TestHttp here = new TestHttp(this.port);
			TestHttp there = new TestHttp(Integer.parseInt(other.getEnvironment().getProperty("local.server.port")));
			RateLimitRules otherRules = other.getBean(RateLimitRules.class);
			HttpResponse<String> set = here.call("POST", "/actuator/ratelimits/search/exceptions",
					"{\"subject\": \"user-42\", \"limit\": 15}", Map.of());
			assertThat(set.statusCode()).isEqualTo(200);
			JsonNode listed = exception(json.readTree(set.body()), "user-42");
			assertThat(listed.get("limit").asLong()).isEqualTo(15);
			assertThat(listed.get("source").asString()).isEqualTo("runtime");
			assertThat(this.rules.get("search").orElseThrow().exceptions()).as("in effect here at once")
				.containsKey("user-42");
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
				.until(() -> otherRules.get("search").orElseThrow().exceptions().containsKey("user-42"));
			assertThat(admitted(here, there, "user-42", 16)).as("user-42 gets 15 across both instances").isEqualTo(15);
			assertThat(admitted(there, here, "user-42", 2)).isZero();
			assertThat(admitted(here, there, "user-7", 12)).as("others keep the rule's 10").isEqualTo(10);
			JsonNode rule = json.readTree(there.call("GET", "/actuator/ratelimits/search", null, Map.of()).body());
			assertThat(rule.get("exceptions").get("user-42").asLong()).isEqualTo(15);
			assertThat(rule.get("exceptions").get("vip").asLong()).isEqualTo(20);
			assertThat(there.call("DELETE", "/actuator/ratelimits/search/exceptions/user-42", null, Map.of())
				.statusCode()).as("removed through the other instance").isEqualTo(200);
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
				.until(() -> !this.rules.get("search").orElseThrow().exceptions().containsKey("user-42"));
		}
	}

	@Test
	void aConfiguredExceptionIsInEffectFromStartUpAndListed() throws Exception {
		TestHttp here = new TestHttp(this.port);
		assertThat(admitted(here, here, "vip", 21)).isEqualTo(20);
		JsonNode state = json.readTree(here.call("GET", "/actuator/ratelimits/search/vip", null, Map.of()).body());
		assertThat(state.get("limit").asLong()).as("the subject view shows the exception's limit").isEqualTo(20);
		assertThat(state.get("used").asLong()).isEqualTo(20);
		assertThat(admitted(here, here, "someone", 11)).isEqualTo(10);
		HttpResponse<String> list = here.call("GET", "/actuator/ratelimits/search/exceptions", null, Map.of());
		assertThat(list.statusCode()).isEqualTo(200);
		JsonNode vip = exception(json.readTree(list.body()), "vip");
		assertThat(vip.get("limit").asLong()).isEqualTo(20);
		assertThat(vip.get("source").asString()).isEqualTo("configuration");
		assertThat(here.call("GET", "/actuator/ratelimits/nope/exceptions", null, Map.of()).statusCode())
			.isEqualTo(404);
	}

	@Test
	void exceptionsAreBoundedPerRuleAndRemovedOneByOne(CapturedOutput output) throws Exception {
		for (String subject : new String[] { "a", "b", "c" }) {
			assertThat(post("{\"subject\": \"" + subject + "\", \"limit\": 5}").statusCode()).isEqualTo(200);
		}
		assertBadRequest("{\"subject\": \"d\", \"limit\": 5}", "as many exceptions as ratelimit.exceptions.max-per-rule");
		assertThat(post("{\"subject\": \"c\", \"limit\": 6}").statusCode()).as("changing one is not adding one")
			.isEqualTo(200);
		assertThat(this.rules.get("search").orElseThrow().exceptions().get("c").limit()).isEqualTo(6);
		assertThat(delete("/actuator/ratelimits/search/exceptions/c").statusCode()).isEqualTo(200);
		assertThat(delete("/actuator/ratelimits/search/exceptions/c").statusCode()).as("gone").isEqualTo(404);
		assertThat(post("{\"subject\": \"d\", \"limit\": 5}").statusCode()).isEqualTo(200);
		assertThat(output).as("each change logged with who made it")
			.contains("Rate limit rule 'search': the exception of 'c' set to 6 by an unauthenticated caller")
			.contains("Rate limit rule 'search': the exception of 'c' removed by an unauthenticated caller");
		HttpResponse<String> configured = delete("/actuator/ratelimits/search/exceptions/vip");
		assertThat(configured.statusCode()).isEqualTo(400);
		assertThat(json.readTree(configured.body()).get("reason").asString())
			.contains("remove it from ratelimit.rules.search.exceptions");
		HttpResponse<String> unknownRule = delete("/actuator/ratelimits/nope/exceptions/a");
		assertThat(unknownRule.statusCode()).isEqualTo(400);
		assertThat(json.readTree(unknownRule.body()).get("reason").asString()).contains("unknown rule 'nope'");
	}

	@Test
	void invalidExceptionsGetBadRequestWithTheReasonAndChangeNothing() throws Exception {
		assertBadRequest("{\"subject\": \"user-42\", \"limit\": -5}", "limit must be at least 1 but was -5");
		assertBadRequest("{\"subject\": \"user-42\", \"limit\": 0}", "limit must be at least 1 but was 0");
		assertBadRequest("{\"limit\": 1000}", "give the subject");
		assertBadRequest("{\"subject\": \"  \", \"limit\": 1000}", "give the subject");
		assertBadRequest("{\"subject\": \"user-42\"}", "give the subject's limit");
		assertBadRequest("{\"subject\": \"user-42\", \"limt\": 5}", "unknown field 'limt'");
		assertBadRequest("{\"subject\": \"" + "x".repeat(513) + "\", \"limit\": 5}", "longer than 512");
		HttpResponse<String> unknownRule = new TestHttp(this.port).call("POST", "/actuator/ratelimits/nope/exceptions",
				"{\"subject\": \"user-42\", \"limit\": 1000}", Map.of());
		assertThat(unknownRule.statusCode()).isEqualTo(400);
		assertThat(json.readTree(unknownRule.body()).get("reason").asString()).contains("unknown rule 'nope'");
		assertThat(this.rules.get("search").orElseThrow().exceptions()).containsOnlyKeys("vip");
	}

	private void assertBadRequest(String body, String reason) throws Exception {
		HttpResponse<String> response = post(body);
		assertThat(response.statusCode()).as(body).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("reason").asString()).as(body).contains(reason);
	}

	private HttpResponse<String> post(String body) {
		return new TestHttp(this.port).call("POST", "/actuator/ratelimits/search/exceptions", body, Map.of());
	}

	private HttpResponse<String> delete(String path) {
		return new TestHttp(this.port).call("DELETE", path, null, Map.of());
	}

	/** Sends requests of one API key, alternating between two instances, and returns how many were admitted. */
	private static int admitted(TestHttp first, TestHttp second, String apiKey, int requests) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			HttpResponse<String> response = ((i % 2 == 0) ? first : second).call("GET", "/search", null,
					Map.of("X-API-Key", apiKey));
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
		}
		return admitted;
	}

	private static JsonNode exception(JsonNode list, String subject) {
		for (JsonNode exception : list.get("exceptions")) {
			if (exception.get("subject").asString().equals(subject)) {
				return exception;
			}
		}
		throw new AssertionError("no exception of " + subject + " in " + list);
	}

}
