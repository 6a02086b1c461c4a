package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.web.RateLimitFieldsConformance;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cloud.gateway.route.RouteLocator;
import org.springframework.cloud.gateway.route.builder.RouteLocatorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite of the rate limit fields and the shared HTTP cases through Spring Cloud Gateway routes, against
 * real Redis: each path of the suite is a route that forwards to a local backend, and its {@code RateLimit} filter
 * applies the rules that the servlet and WebFlux applications match to that path (one route per endpoint, as
 * {@code ConformanceTestApplication} has one handler per endpoint). The rules' own matching is switched off
 * ({@code match.enabled=false}, as docs/gateway.md advises for rules that routes name), so that only the routes apply
 * them. Every case asserts exactly what it asserts of the servlet and WebFlux stacks.
 */
@SpringBootTest(classes = GatewayRateLimitFieldsConformanceIntegrationTests.ConformanceGateway.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-conformance-test", "spring.main.web-application-type=reactive" })
class GatewayRateLimitFieldsConformanceIntegrationTests extends RateLimitFieldsConformance {

	private static final LocalBackend backend = LocalBackend.start();

	private static final List<String> ALGORITHMS = List.of("fixed-window", "sliding-window-log",
			"sliding-window-counter", "token-bucket", "leaky-bucket", "gcra");

	/** The routes, in the order the gateway tries them: a path and the rules its {@code RateLimit} filter names. */
	private static final List<RateLimitedRoute> ROUTES = routes();

	private static List<RateLimitedRoute> routes() {
		List<RateLimitedRoute> routes = new ArrayList<>();
		for (String algorithm : ALGORITHMS) {
			routes.add(new RateLimitedRoute("/cf/" + algorithm, "cf-" + algorithm));
			routes.add(new RateLimitedRoute("/cf/retry/" + algorithm, "retry-" + algorithm));
		}
		routes.add(new RateLimitedRoute("/cf/concurrency", "cf-concurrency"));
		routes.add(new RateLimitedRoute("/cf/multi", "cf-multi-hourly", "cf-multi-burst"));
		routes.add(new RateLimitedRoute("/api/orders", "orders"));
		routes.add(new RateLimitedRoute("/cf/http/hello", "http-hello"));
		routes.add(new RateLimitedRoute("/cf/http/retry", "http-retry"));
		// two routes, so that key endpoint tells them apart
		routes.add(new RateLimitedRoute("/cf/http/composite/a", "http-composite"));
		routes.add(new RateLimitedRoute("/cf/http/composite/b", "http-composite"));
		routes.add(new RateLimitedRoute("/cf/http/search", "http-search"));
		routes.add(new RateLimitedRoute("/cf/http/shadow", "http-shadow-only", "http-shadow-enforced"));
		routes.add(new RateLimitedRoute("/cf/http/all/narrow", "http-all-wide", "http-all-narrow"));
		routes.add(new RateLimitedRoute("/cf/http/all/**", "http-all-wide"));
		// a route that limits nothing
		routes.add(new RateLimitedRoute("/cf/http/open"));
		return List.copyOf(routes);
	}

	@DynamicPropertySource
	static void onlyRoutesApplyTheRules(DynamicPropertyRegistry registry) {
		registry.add("backend.uri", backend::uri);
		ROUTES.stream()
			.flatMap((route) -> route.rules().stream())
			.distinct()
			.forEach((rule) -> registry.add("ratelimit.rules." + rule + ".match.enabled", () -> "false"));
	}

	@AfterAll
	static void stopBackend() {
		backend.close();
	}

	@Test
	void theBackendAnswersThroughTheRoute() {
		assertThat(get("/cf/http/hello", Map.of("X-Client", UUID.randomUUID().toString())).body())
			.isEqualTo("backend");
	}

	@Test
	void aPathGetsTheRulesOfTheFirstRouteThatMatchesIt() {
		Map<String, String> client = Map.of("X-Client", UUID.randomUUID().toString());
		assertThat(TestHttp.header(get("/cf/http/all/other", client), "RateLimit-Policy"))
			.isEqualTo("\"http-all-wide\";q=5;w=3600");
	}

	/**
	 * One route of the suite.
	 * @param path its {@code Path} predicate
	 * @param rules the rules its {@code RateLimit} filter names; none for a route without the filter
	 */
	record RateLimitedRoute(String path, List<String> rules) {

		RateLimitedRoute(String path, String... rules) {
			this(path, List.of(rules));
		}

	}

	/** A gateway whose routes forward the suite's paths to the backend. */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ConformanceGateway {

		@Bean
		RouteLocator conformanceRoutes(RouteLocatorBuilder builder, RateLimitGatewayFilterFactory rateLimit,
				Environment environment) {
			String uri = environment.getRequiredProperty("backend.uri");
			RouteLocatorBuilder.Builder routes = builder.routes();
			for (int i = 0; i < ROUTES.size(); i++) {
				RateLimitedRoute route = ROUTES.get(i);
				String id = "cf-" + i;
				routes.route(id, (spec) -> spec.path(route.path())
					.filters((filters) -> route.rules().isEmpty() ? filters
							: filters.filter(rateLimit.apply(id, (config) -> config.setRules(route.rules()))))
					.uri(uri));
			}
			return routes.build();
		}

	}

}
