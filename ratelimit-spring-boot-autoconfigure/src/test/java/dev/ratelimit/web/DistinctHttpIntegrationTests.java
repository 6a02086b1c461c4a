package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.ratelimit.test.TestHttp.header;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A distinct rule over HTTP against real Redis: {@code login-usernames} admits at most 5 usernames per client IP per
 * hour on {@code /login}, and always a username already seen in the hour.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class DistinctHttpIntegrationTests {

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@BeforeEach
	void flush() {
		FreshState.start(this.connectionFactory, this.limiter);
	}

	@Test
	void fiveUsernamesFromOneIpAreAdmittedTheSixthIsRejectedAndASeenOneIsAdmittedAgain() {
		TestHttp http = new TestHttp(this.port);
		for (int i = 1; i <= 5; i++) {
			HttpResponse<String> response = http.get("/login?username=u" + i);
			assertThat(response.statusCode()).as("u%d", i).isEqualTo(200);
			assertThat(StructuredFields.parseList(header(response, "RateLimit-Policy")))
				.containsExactly(new StructuredFields.Item("login-usernames", Map.of("q", 5L, "w", 3600L)));
			assertThat(StructuredFields.parseList(header(response, "RateLimit")).get(0).parameters())
				.as("distinct values remaining after u%d", i)
				.containsEntry("r", 5L - i);
			assertThat(header(response, "X-RateLimit-Remaining")).isEqualTo(Long.toString(5 - i));
		}

		HttpResponse<String> denied = http.get("/login?username=u6");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(header(denied, "Content-Type")).startsWith("application/problem+json");
		long retryAfter = Long.parseLong(header(denied, "Retry-After"));
		assertThat(retryAfter).as("until the hour's window ends").isBetween(1L, 3600L);
		assertThat(StructuredFields.parseList(header(denied, "RateLimit")).get(0).parameters()).containsEntry("r", 0L);

		HttpResponse<String> again = http.get("/login?username=u1");
		assertThat(again.statusCode()).as("u1 was seen this hour").isEqualTo(200);
		assertThat(http.get("/login?username=u7").statusCode()).isEqualTo(429);
		assertThat(http.get("/login?username=u5").statusCode()).isEqualTo(200);
	}

	@Test
	void usernamesAreStoredOnlyAsHashedTokens() {
		new TestHttp(this.port).get("/login?username=alice%40example.com");
		try (var connection = this.connectionFactory.getConnection()) {
			List<String> keys = new java.util.ArrayList<>();
			connection.keyCommands().keys("*".getBytes()).forEach((key) -> keys.add(new String(key)));
			assertThat(keys).isNotEmpty().noneMatch((key) -> key.contains("alice"));
			for (String key : keys) {
				if (!key.endsWith(":w")) {
					assertThat(connection.setCommands().sMembers(key.getBytes())).extracting(String::new)
						.singleElement()
						.satisfies((member) -> assertThat(member).matches("[0-9]{1,19}"));
				}
			}
		}
	}

}
