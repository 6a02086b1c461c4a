package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite of the rate limit fields over the servlet stack (filter and problem handler), against real
 * Redis; and the example responses of {@code docs/api-clients.md}, which this stack produces.
 */
@RedisStandaloneTest
@SpringBootTest(classes = ConformanceTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-conformance-test")
class ServletRateLimitFieldsConformanceIntegrationTests extends RateLimitFieldsConformance {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@Override
	protected HttpResponse<String> get(String path, Map<String, String> headers) {
		return new TestHttp(this.port).get(path, headers);
	}

	/** The rule {@code orders} (3 per minute, GCRA): its first response, and the 429 after three requests. */
	@Test
	void examplesOfTheClientsPageAreTheResponsesOfTheStarter() throws Exception {
		Map<String, String> client = Map.of("X-Client", UUID.randomUUID().toString());
		HttpResponse<String> allowed = get("/api/orders", client);
		get("/api/orders", client);
		get("/api/orders", client);
		HttpResponse<String> denied = get("/api/orders", client);
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(denied.statusCode()).isEqualTo(429);
		ApiClientsPage page = new ApiClientsPage();
		page.example("allowed", allowed, false);
		page.example("denied", denied, true);
		page.check();
	}

}
