package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.test.NoBlockingCallConformance;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.web.ConformanceTestApplication;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No blocking call on a non-blocking thread ({@link NoBlockingCallConformance}) while a WebFlux application's
 * {@link RateLimitWebFilter} answers allowed, denied, waiting, lease-holding and count-when requests with Redis up,
 * stalled beyond the limiter's timeout and stopped.
 */
class WebFluxBlockHoundIntegrationTests extends NoBlockingCallConformance {

	@Override
	protected ConfigurableApplicationContext start(String redisHost, int redisPort) {
		return reactiveApplication("ratelimit-webflux-test", redisHost, redisPort, ConformanceTestApplication.class)
			.properties(ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY)
			.run();
	}

	@Override
	protected String probePath() {
		return "/cf/wf/local";
	}

	@Override
	protected void assertAnswersWithRedisUp(TestHttp http) {
		Map<String, String> client = client();
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			statuses.add(http.get("/cf/wf/local", client).statusCode());
		}
		assertThat(statuses).containsExactly(200, 200, 200, 429, 429);
		assertThat(http.get("/cf/wf/wait", client).statusCode()).isEqualTo(200);
		assertThat(http.get("/cf/wf/wait", client).statusCode()).as("waited for its slot").isEqualTo(200);
	}

	@Override
	protected void assertDegradedAnswers(TestHttp http) {
		Map<String, String> client = client();
		List<Integer> local = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			local.add(http.get("/cf/wf/local", client).statusCode());
		}
		assertThat(local).as("the local fallback keeps the limit").containsExactly(200, 200, 200, 429, 429);
		assertThat(http.get("/cf/wf/allow", client).statusCode()).isEqualTo(200);
		HttpResponse<String> denied = http.get("/cf/wf/deny", client);
		assertThat(denied.statusCode()).isEqualTo(503);
		assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
	}

}
