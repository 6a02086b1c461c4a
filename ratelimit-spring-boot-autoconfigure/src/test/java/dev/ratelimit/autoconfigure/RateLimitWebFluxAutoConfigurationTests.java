package dev.ratelimit.autoconfigure;

import java.util.Map;

import dev.ratelimit.Verdict;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.reactive.ProblemDetailReactiveRejectionHandler;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.reactive.ReactiveRateLimitRejectionHandler;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.server.ServerWebExchange;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which stack's adapter runs: the WebFilter only in a reactive application, the servlet filter only in a servlet one;
 * one WebFilter without Spring Security, one before and one after its {@code WebFilterChainProxy} with it.
 */
class RateLimitWebFluxAutoConfigurationTests {

	private static final String[] RULES = { "ratelimit.rules.per-ip.limit=10", "ratelimit.rules.per-ip.period=1m",
			"ratelimit.rules.per-user.key=user", "ratelimit.rules.per-user.limit=10",
			"ratelimit.rules.per-user.period=1m" };

	private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class))
		.withPropertyValues(RULES);

	@Test
	void aReactiveApplicationGetsOneWebFilterAndNoServletFilter() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(RateLimitWebFilter.class)).containsOnlyKeys("rateLimitWebFilter");
			assertThat(context.getBean(RateLimitWebFilter.class).getOrder()).isEqualTo(-90);
			assertThat(context).hasSingleBean(RateLimitHeaders.class);
			assertThat(context.getBean(ReactiveRateLimitRejectionHandler.class))
				.isInstanceOf(ProblemDetailReactiveRejectionHandler.class);
			assertThat(context).doesNotHaveBean(RateLimitHeadersWriter.class);
			assertThat(context).doesNotHaveBean("rateLimitFilterRegistration");
		});
	}

	@Test
	void aServletApplicationGetsNoWebFilter() {
		new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
					RateLimitServletAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class))
			.withPropertyValues(RULES)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
				assertThat(context).hasBean("rateLimitFilterRegistration");
			});
	}

	@Test
	void withoutSpringWebFluxNothingReactiveIsConfigured() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security", "org.springframework.web.reactive"))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(RateLimitWebFilter.class);
			});
	}

	@Test
	void theRejectionHandlerAndTheHeadersAreReplaceable() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withUserConfiguration(Replacements.class)
			.run((context) -> {
				assertThat(context.getBean(ReactiveRateLimitRejectionHandler.class))
					.isSameAs(context.getBean(Replacements.class).handler);
				assertThat(context.getBean(RateLimitHeaders.class)).isSameAs(context.getBean(Replacements.class).headers);
			});
	}

	@Test
	void withSpringSecurityRulesRunBeforeOrAfterItsFilterChain() {
		this.runner
			.withConfiguration(AutoConfigurations.of(
					org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration.class,
					org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				Map<String, RateLimitWebFilter> filters = context.getBeansOfType(RateLimitWebFilter.class);
				assertThat(filters).containsOnlyKeys("rateLimitBeforeAuthenticationWebFilter", "rateLimitWebFilter");
				assertThat(filters.get("rateLimitBeforeAuthenticationWebFilter").getOrder()).isEqualTo(-110);
				assertThat(filters.get("rateLimitWebFilter").getOrder()).isEqualTo(-90);
			});
	}

	@Configuration(proxyBeanMethods = false)
	static class Replacements {

		final ReactiveRateLimitRejectionHandler handler = (ServerWebExchange exchange, Verdict verdict) -> Mono.empty();

		final RateLimitHeaders headers = new RateLimitHeaders(dev.ratelimit.web.HeaderStyle.NONE,
				java.time.Clock.systemUTC(), null);

		@Bean
		ReactiveRateLimitRejectionHandler customRejectionHandler() {
			return this.handler;
		}

		@Bean
		RateLimitHeaders customHeaders() {
			return this.headers;
		}

	}

}
