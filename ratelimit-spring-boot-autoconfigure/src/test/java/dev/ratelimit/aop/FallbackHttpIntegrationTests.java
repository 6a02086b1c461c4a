package dev.ratelimit.aop;

import java.net.http.HttpResponse;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Through a servlet and a WebFlux application on real Redis: a service method with a fallback answers the
 * fallback's value once limited (200, not 429), counted as {@code outcome=fallback}.
 */
@RedisStandaloneTest
class FallbackHttpIntegrationTests {

	@Test
	void servletServiceAnswersTheFallbacksValueWhenLimited(RedisEndpoint redis) {
		redis.flushAll();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ServletApplication.class)
			.properties("server.port=0", "spring.main.web-application-type=servlet",
					"spring.data.redis.url=" + redis.uri(), "ratelimit.key-prefix=rl-fallback-servlet")
			.run()) {
			assertLimitedAnswersFallback(context);
		}
	}

	@Test
	void reactiveServiceAnswersTheFallbacksValueWhenLimited(RedisEndpoint redis) {
		redis.flushAll();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ReactiveApplication.class)
			.properties("server.port=0", "spring.main.web-application-type=reactive",
					"spring.data.redis.url=" + redis.uri(), "ratelimit.key-prefix=rl-fallback-reactive")
			.run()) {
			assertLimitedAnswersFallback(context);
		}
	}

	private static void assertLimitedAnswersFallback(ConfigurableApplicationContext context) {
		TestHttp http = new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
		for (int i = 0; i < 2; i++) {
			HttpResponse<String> fresh = http.get("/quotes/ACME");
			assertThat(fresh.statusCode()).isEqualTo(200);
			assertThat(fresh.body()).isEqualTo("fresh ACME");
		}
		HttpResponse<String> limited = http.get("/quotes/ACME");
		assertThat(limited.statusCode()).isEqualTo(200);
		assertThat(limited.body()).startsWith("cached ACME (retry in PT");
		// the subject is the symbol: another one still has its quota
		assertThat(http.get("/quotes/INIT").body()).isEqualTo("fresh INIT");
		MeterRegistry registry = context.getBean(MeterRegistry.class);
		assertThat(registry.get("ratelimit.requests").tag("rule", "quotes").tag("outcome", "fallback").counter().count())
			.isEqualTo(1);
	}

	/** The quote service of both applications: blocking for the servlet one, a Mono for the reactive one. */
	static class QuoteService {

		@RateLimited(name = "quotes", limit = 2, period = "1h", key = "#symbol", fallbackMethod = "cached")
		public String quote(String symbol) {
			return "fresh " + symbol;
		}

		String cached(String symbol, RateLimitExceededException denial) {
			return "cached " + symbol + " (retry in " + denial.getRetryAfter() + ")";
		}

		@RateLimited(name = "quotes", limit = 2, period = "1h", key = "#symbol", fallbackMethod = "cachedMono")
		public Mono<String> quoteMono(String symbol) {
			return Mono.just("fresh " + symbol);
		}

		Mono<String> cachedMono(String symbol, RateLimitExceededException denial) {
			return Mono.just(cached(symbol, denial));
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
	@Import({ QuoteService.class, ServletController.class })
	static class ServletApplication {

	}

	@RestController
	static class ServletController {

		private final QuoteService quotes;

		ServletController(QuoteService quotes) {
			this.quotes = quotes;
		}

		@GetMapping("/quotes/{symbol}")
		String quote(@PathVariable String symbol) {
			return this.quotes.quote(symbol);
		}

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration" })
	@Import({ QuoteService.class, ReactiveController.class })
	static class ReactiveApplication {

	}

	@RestController
	static class ReactiveController {

		private final QuoteService quotes;

		ReactiveController(QuoteService quotes) {
			this.quotes = quotes;
		}

		@GetMapping("/quotes/{symbol}")
		Mono<String> quote(@PathVariable String symbol) {
			return this.quotes.quoteMono(symbol);
		}

	}

}
