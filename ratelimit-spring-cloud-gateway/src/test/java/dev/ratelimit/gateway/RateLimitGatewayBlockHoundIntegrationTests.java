package dev.ratelimit.gateway;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.test.NoBlockingCallConformance;
import dev.ratelimit.test.TestHttp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No blocking call on a non-blocking thread ({@link NoBlockingCallConformance}) while a gateway's routes (those of
 * {@code ratelimit-gateway-test.yml}) admit and deny through the {@code RateLimit} route filter and through the
 * gateway's {@code RequestRateLimiter} with the {@code ratelimit} limiter, with Redis up, stalled beyond the limiter's
 * timeout and stopped; and a route filter that blocks after the {@code RateLimit} filter's verdict is seen.
 */
class RateLimitGatewayBlockHoundIntegrationTests extends NoBlockingCallConformance {

	private LocalBackend backend;

	@AfterEach
	void stopBackend() {
		if (this.backend != null) {
			this.backend.close();
		}
	}

	@Override
	protected ConfigurableApplicationContext start(String redisHost, int redisPort) {
		this.backend = LocalBackend.start();
		return reactiveApplication("ratelimit-gateway-test", redisHost, redisPort, GatewayTestApplication.class,
				BlockingRoute.class)
			.properties("backend.uri=" + this.backend.uri())
			.run();
	}

	@Override
	protected String probePath() {
		return "/open/a";
	}

	@Override
	protected void assertAnswersWithRedisUp(TestHttp http) {
		assertLimitsKept(http, "the limit");
	}

	@Override
	protected void assertDegradedAnswers(TestHttp http) {
		assertLimitsKept(http, "the local fallback keeps the limit");
		assertThat(http.get("/open/a", client()).body()).as("on-store-failure: allow").isEqualTo("backend");
		HttpResponse<String> denied = http.get("/closed/a", client());
		assertThat(denied.statusCode()).as("on-store-failure: deny").isEqualTo(503);
		assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
	}

	/** The route filter (gw-costly: 4 per hour, cost 2) and the RequestRateLimiter (gw-classic: 2 per hour). */
	private static void assertLimitsKept(TestHttp http, String description) {
		Map<String, String> client = client();
		List<Integer> routeFilter = new ArrayList<>();
		List<Integer> requestRateLimiter = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			routeFilter.add(http.get("/costly/a", client).statusCode());
			requestRateLimiter.add(http.get("/classic/a", client).statusCode());
		}
		assertThat(routeFilter).as("RateLimit filter: " + description).containsExactly(200, 200, 429);
		assertThat(requestRateLimiter).as("RequestRateLimiter: " + description).containsExactly(200, 200, 429);
	}

	@Test
	void aFilterThatBlocksAfterTheVerdictIsSeen() {
		assertBlockingCallSeen("/blocking/a", client());
	}

	/** A route whose filter after {@code RateLimit} blocks: it runs where the request goes on after the verdict. */
	@Configuration(proxyBeanMethods = false)
	static class BlockingRoute {

		@Bean
		RouteLocator blockingRoute(RouteLocatorBuilder builder, RateLimitGatewayFilterFactory rateLimit,
				Environment environment) {
			return builder.routes()
				.route("blocking", (spec) -> spec.path("/blocking/**")
					.filters((filters) -> filters.filter(rateLimit.apply("blocking",
							(config) -> config.setRules(List.of("gw-open"))))
						.filter((exchange, chain) -> {
							blockBriefly();
							return chain.filter(exchange);
						}))
					.uri(environment.getRequiredProperty("backend.uri")))
				.build();
		}

	}

}
