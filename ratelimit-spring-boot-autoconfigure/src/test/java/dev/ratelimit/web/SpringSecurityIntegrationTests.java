package dev.ratelimit.web;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Map;
import java.util.List;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter behind Spring Security's HTTP Basic, against real Redis: rules keyed by the IP run before
 * authentication, so failed logins count; rules keyed by the user run after it, so they see the principal.
 */
@RedisStandaloneTest
@SpringBootTest(classes = SecurityHttpTestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-security-test")
class SpringSecurityIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@BeforeEach
	void flush(RedisEndpoint redis) {
		// each test uses rules of its own, so the limiter's memory of denials (the deny cache) cannot interfere
		redis.flushAll();
	}

	@Test
	void failedAuthenticationsCountAgainstAnIpRule() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		List<String> remaining = new ArrayList<>();
		HttpResponse<String> last = null;
		for (int i = 0; i < 6; i++) {
			last = get("/secure/hello", "alice", "wrong-password-" + i);
			statuses.add(last.statusCode());
			remaining.add(last.headers().firstValue("X-RateLimit-Remaining").orElse("none"));
		}
		assertThat(statuses).containsExactly(401, 401, 401, 401, 401, 429);
		assertThat(remaining).containsExactly("4", "3", "2", "1", "0", "0");
		assertThat(json.readTree(last.body()).get("violated-policies").get(0).asString()).isEqualTo("secure-per-ip");
		assertThat(get("/secure/hello", "alice", "alice-secret").statusCode())
			.as("the right password does not escape the limit either")
			.isEqualTo(429);
	}

	@Test
	void userRulesSeeTheAuthenticatedUserAndTheVerdictDescribesBothPhases() throws Exception {
		HttpResponse<String> first = get("/account/checks", "alice", "alice-secret");
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body().lines()).containsExactly("account-per-ip=127.0.0.1", "account-per-user=alice");
		assertThat(StructuredFields.parseList(first.headers().firstValue("RateLimit-Policy").orElseThrow()))
			.extracting(StructuredFields.Item::value)
			.containsExactly("account-per-ip", "account-per-user");
		assertThat(first.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
		assertThat(get("/account/checks", "alice", "alice-secret").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/account/checks", "alice", "alice-secret");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(json.readTree(denied.body()).get("violated-policies").get(0).asString()).isEqualTo("account-per-user");
		assertThat(get("/account/checks", "bob", "bob-secret").statusCode())
			.as("another user from the same address has a quota of his own")
			.isEqualTo(200);
	}

	private HttpResponse<String> get(String path, String user, String password)
			throws IOException, InterruptedException {
		String credentials = Base64.getEncoder()
			.encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
		return new TestHttp(this.port).get(path, Map.of("Authorization", "Basic " + credentials));
	}

}
