package dev.ratelimit.actuate;

import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConformanceTestApplication;
import dev.ratelimit.web.HttpTestApplication;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The operations of the {@code ratelimits} endpoint whose path ends with a subject ({@code GET} and {@code DELETE
 * .../{rule}/{subject}}, {@code DELETE .../{rule}/exceptions/{subject}}) read the same subject on Spring MVC and on
 * WebFlux, for a plain subject and for subjects containing '/' (a composite key, an IPv6 network). WebFlux hands an
 * operation's remaining path with the rule's segment in front, Spring MVC without it.
 */
@RedisStandaloneTest
class RateLimitsEndpointSubjectPathsIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final String[] SUBJECTS = { "trent-paths", "team-7/user-42", "2001:db8::/48" };

	enum Stack {

		MVC, WEBFLUX

	}

	@ParameterizedTest
	@EnumSource(Stack.class)
	void subjectsAreInspectedResetAndExceptedByTheirOwnKey(Stack stack, RedisEndpoint redis) {
		try (ConfigurableApplicationContext context = start(stack, redis)) {
			TestHttp http = new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
			RateLimiter limiter = context.getBean(RateLimiter.class);
			RateLimitPolicy policy = context.getBean(RateLimitRules.class).get("paths").orElseThrow().policy();
			for (String subject : SUBJECTS) {
				String path = "/actuator/ratelimits/paths/" + subject;
				limiter.evaluate(RateLimitCheck.of(policy, subject));
				limiter.evaluate(RateLimitCheck.of(policy, subject));
				JsonNode inspected = ok(http.call("GET", path, null, Map.of()));
				assertThat(inspected.get("subject").asString()).as(stack + " inspects " + subject).isEqualTo(subject);
				assertThat(inspected.get("remaining").asLong()).as(subject).isEqualTo(1);

				JsonNode reset = ok(http.call("DELETE", path, null, Map.of()));
				assertThat(reset.get("subject").asString()).as(stack + " resets " + subject).isEqualTo(subject);
				assertThat(reset.get("remaining").asLong()).as(subject).isEqualTo(3);
				assertThat(limiter.evaluate(RateLimitCheck.of(policy, subject)).decisions().get(0).remaining())
					.as("the subject itself was reset").isEqualTo(2);

				String exception = "{\"subject\": \"" + subject + "\", \"limit\": 7}";
				ok(http.call("POST", "/actuator/ratelimits/paths/exceptions", exception, Map.of()));
				assertThat(ok(http.call("GET", path, null, Map.of())).get("limit").asLong())
					.as(stack + ": the exception of " + subject + " is its limit").isEqualTo(7);
				JsonNode removed = ok(http.call("DELETE", "/actuator/ratelimits/paths/exceptions/" + subject, null,
						Map.of()));
				assertThat(removed.get("exceptions")).as(stack + " removes the exception of " + subject).isEmpty();
				assertThat(ok(http.call("GET", path, null, Map.of())).get("limit").asLong()).as(subject).isEqualTo(3);
			}
		}
	}

	private static JsonNode ok(HttpResponse<String> response) {
		assertThat(response.statusCode()).as(response.uri() + ": " + response.body()).isEqualTo(200);
		return json.readTree(response.body());
	}

	private static ConfigurableApplicationContext start(Stack stack, RedisEndpoint redis) {
		String[] rule = { "ratelimit.rules.paths.match.paths=/paths", "ratelimit.rules.paths.key=header:X-Client",
				"ratelimit.rules.paths.limit=3", "ratelimit.rules.paths.period=1h",
				"ratelimit.key-prefix=rl-paths-" + stack.name().toLowerCase(Locale.ROOT),
				"spring.data.redis.url=" + redis.uri(), "server.port=0",
				"management.endpoints.web.exposure.include=ratelimits" };
		if (stack == Stack.MVC) {
			return new SpringApplicationBuilder(HttpTestApplication.class)
				.properties("spring.config.name=ratelimit-http-test", "spring.main.web-application-type=servlet")
				.properties(rule)
				.run();
		}
		return new SpringApplicationBuilder(ConformanceTestApplication.class)
			.properties("spring.config.name=ratelimit-webflux-test", "spring.main.web-application-type=reactive",
					ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY)
			.properties(rule)
			.run();
	}

}
