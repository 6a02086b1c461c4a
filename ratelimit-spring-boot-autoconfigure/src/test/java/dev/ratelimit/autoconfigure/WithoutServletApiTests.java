package dev.ratelimit.autoconfigure;

import java.security.Principal;
import java.util.Map;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.aop.CurrentRequest;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMatcher;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Without the Servlet API and Spring MVC (as under WebFlux or in a batch application) the engine starts: rules with
 * SpEL keys, tiers and costs, the limiter and the {@code @RateLimited} aspect; and a rule's check is computed from a
 * request view that no servlet request backs.
 */
class WithoutServletApiTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withClassLoader(new FilteredClassLoader("jakarta.servlet", "org.springframework.web.servlet",
				"org.springframework.boot.web.servlet", "org.springframework.boot.webmvc"))
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class, RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class, RateLimitAopAutoConfiguration.class, AopAutoConfiguration.class))
		.withUserConfiguration(Plans.class)
		.withPropertyValues("ratelimit.rules.search.match.paths=/api/search",
				"ratelimit.rules.search.key=tenant-#{request.getHeader('X-Tenant')}",
				"ratelimit.rules.search.tier-key=@plans", "ratelimit.rules.search.tiers.pro=100",
				"ratelimit.rules.search.cost=#{request.getParameter('pageSize') ?: 1}",
				"ratelimit.rules.search.limit=10", "ratelimit.rules.search.period=1m");

	@Test
	void theRulesTheLimiterAndTheAspectStart() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(ClassUtils.isPresent("jakarta.servlet.http.HttpServletRequest", context.getClassLoader()))
				.as("the Servlet API is hidden")
				.isFalse();
			assertThat(context).hasSingleBean(RateLimitRules.class);
			assertThat(context).hasSingleBean(RateLimiter.class);
			assertThat(context).hasSingleBean(RateLimitedAspect.class);
			assertThat(context).doesNotHaveBean(CurrentRequest.class);
			assertThat(context).doesNotHaveBean("rateLimitFilterRegistration");
		});
	}

	@Test
	void aRulesCheckIsComputedFromAViewThatNoServletRequestBacks() {
		this.runner.run((context) -> {
			RuleMatcher matcher = new RuleMatcher(context.getBean(RateLimitRules.class));
			RateLimitRequest search = new MapRequest("GET", "/api/search", Map.of("X-Tenant", "acme", "X-Plan", "pro"),
					Map.of("pageSize", "3"));
			assertThat(matcher.checksFor(search)).singleElement().satisfies((check) -> {
				assertThat(check.policy().name()).isEqualTo("search");
				assertThat(check.subject()).isEqualTo("tenant-acme");
				assertThat(check.policy().limit()).isEqualTo(100);
				assertThat(check.cost()).isEqualTo(3);
			});
			assertThat(matcher.checksFor(new MapRequest("GET", "/api/other", Map.of(), Map.of()))).isEmpty();
		});
	}

	@Test
	void annotatedCallsAreLimitedOutsideAnyRequest() {
		this.runner.withBean(Reports.class).run((context) -> {
			Reports reports = context.getBean(Reports.class);
			assertThat(reports.generate()).isEqualTo("report");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(reports::generate);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class Plans {

		@Bean
		KeyResolver plans() {
			return (request) -> request.getHeader("X-Plan");
		}

	}

	public static class Reports {

		@RateLimited(name = "reports", limit = 1, period = "1h")
		public String generate() {
			return "report";
		}

	}

	/** A request of another web stack, read from maps. */
	record MapRequest(String method, String requestUri, Map<String, String> headers,
			Map<String, String> parameters) implements RateLimitRequest {

		@Override
		public String getMethod() {
			return this.method;
		}

		@Override
		public String getRequestURI() {
			return this.requestUri;
		}

		@Override
		public String getContextPath() {
			return "";
		}

		@Override
		public @Nullable String getHeader(String name) {
			return this.headers.get(name);
		}

		@Override
		public @Nullable String getParameter(String name) {
			return this.parameters.get(name);
		}

		@Override
		public String getRemoteAddr() {
			return "192.0.2.1";
		}

		@Override
		public @Nullable Principal getUserPrincipal() {
			return null;
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			return null;
		}

		@Override
		public Object getNativeRequest() {
			return this;
		}

	}

}
