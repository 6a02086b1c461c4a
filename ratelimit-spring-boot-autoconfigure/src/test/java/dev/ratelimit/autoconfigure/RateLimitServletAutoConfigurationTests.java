package dev.ratelimit.autoconfigure;

import java.util.Map;
import java.util.stream.Collectors;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.web.RateLimitFilter;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Where the filters run: one filter for every rule without Spring Security, one before and one after its filter chain
 * with it.
 */
class RateLimitServletAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.per-ip.limit=10", "ratelimit.rules.per-ip.period=1m",
				"ratelimit.rules.per-user.key=user", "ratelimit.rules.per-user.limit=10",
				"ratelimit.rules.per-user.period=1m");

	private final WebApplicationContextRunner securedRunner = this.runner
		.withConfiguration(AutoConfigurations.of(ServletWebSecurityAutoConfiguration.class));

	@Test
	void withoutSpringSecurityOneFilterAppliesEveryRule() {
		this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security")).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBeansOfType(FilterRegistrationBean.class)).containsOnlyKeys("rateLimitFilterRegistration");
			FilterRegistrationBean<?> registration = registration(context, "rateLimitFilterRegistration");
			assertThat(registration.getOrder()).isEqualTo(-90);
			assertThat(rulesDecidedBy(registration.getFilter())).isEqualTo("per-ip=127.0.0.1,per-user=alice");
		});
	}

	@Test
	void springSecurityOnTheClassPathWithoutItsFilterChainKeepsOneFilter() {
		this.runner.run((context) -> {
			assertThat(context).doesNotHaveBean("springSecurityFilterChain");
			assertThat(context.getBeansOfType(FilterRegistrationBean.class)).containsOnlyKeys("rateLimitFilterRegistration");
			assertThat(rulesDecidedBy(registration(context, "rateLimitFilterRegistration").getFilter()))
				.isEqualTo("per-ip=127.0.0.1,per-user=alice");
		});
	}

	@Test
	void withSpringSecurityRulesRunBeforeOrAfterItsFilterChainByTheirKey() {
		this.securedRunner.run((context) -> {
			assertThat(context).hasBean("springSecurityFilterChain");
			FilterRegistrationBean<?> before = registration(context, "rateLimitBeforeAuthenticationFilterRegistration");
			FilterRegistrationBean<?> after = registration(context, "rateLimitFilterRegistration");
			assertThat(before.getOrder()).isEqualTo(-110);
			assertThat(after.getOrder()).isEqualTo(-90);
			assertThat(before.getFilterName()).isNotEqualTo(after.getFilterName());
			assertThat(rulesDecidedBy(before.getFilter())).isEqualTo("per-ip=127.0.0.1");
			assertThat(rulesDecidedBy(after.getFilter())).isEqualTo("per-user=alice");
		});
	}

	@Test
	void secondPhaseMergesItsVerdictWithTheFirstPhases() {
		this.securedRunner.run((context) -> {
			MockHttpServletRequest request = request();
			MockHttpServletResponse response = new MockHttpServletResponse();
			Filter before = registration(context, "rateLimitBeforeAuthenticationFilterRegistration").getFilter();
			Filter after = registration(context, "rateLimitFilterRegistration").getFilter();
			new MockFilterChain(new HttpServlet() {
			}, before, after).doFilter(request, response);
			assertThat(checks((Verdict) request.getAttribute(RateLimitFilter.VERDICT_ATTRIBUTE)))
				.isEqualTo("per-ip=127.0.0.1,per-user=alice");
			assertThat(response.getHeader("RateLimit-Policy")).isEqualTo("\"per-ip\";q=10;w=60, \"per-user\";q=10;w=60");
		});
	}

	@Test
	void phasesFollowTheKeyUnlessConfigured() {
		this.securedRunner
			.withPropertyValues("ratelimit.rules.composite.key=endpoint+user", "ratelimit.rules.composite.limit=1",
					"ratelimit.rules.composite.period=1m", "ratelimit.rules.tiered.tiers.pro=5",
					"ratelimit.rules.tiered.tier-key=user", "ratelimit.rules.tiered.limit=1",
					"ratelimit.rules.tiered.period=1m",
					"ratelimit.rules.spel.key=#{request.userPrincipal?.name}", "ratelimit.rules.spel.limit=1",
					"ratelimit.rules.spel.period=1m", "ratelimit.rules.spel-after.key=#{request.userPrincipal?.name}",
					"ratelimit.rules.spel-after.phase=after-authentication", "ratelimit.rules.spel-after.limit=1",
					"ratelimit.rules.spel-after.period=1m", "ratelimit.rules.per-user.phase=before-authentication")
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				Map<String, RulePhase> phases = rules.all()
					.stream()
					.collect(Collectors.toMap((rule) -> rule.name(), (rule) -> rule.phase()));
				assertThat(phases).containsExactlyInAnyOrderEntriesOf(Map.of("per-ip", RulePhase.BEFORE_AUTHENTICATION,
						"per-user", RulePhase.BEFORE_AUTHENTICATION, "composite", RulePhase.AFTER_AUTHENTICATION,
						"tiered", RulePhase.AFTER_AUTHENTICATION, "spel", RulePhase.BEFORE_AUTHENTICATION,
						"spel-after", RulePhase.AFTER_AUTHENTICATION));
			});
	}

	@Test
	void beforeAuthenticationOrderFollowsSpringSecuritysOrderOrItsOwnProperty() {
		this.securedRunner.withPropertyValues("spring.security.filter.order=-50")
			.run((context) -> assertThat(
					registration(context, "rateLimitBeforeAuthenticationFilterRegistration").getOrder())
				.isEqualTo(-60));
		this.securedRunner.withPropertyValues("ratelimit.filter.before-authentication-order=-500")
			.run((context) -> assertThat(
					registration(context, "rateLimitBeforeAuthenticationFilterRegistration").getOrder())
				.isEqualTo(-500));
	}

	@Test
	void beforeAuthenticationOrderAfterTheSecurityFilterChainFailsStartUp() {
		this.securedRunner.withPropertyValues("ratelimit.filter.before-authentication-order=-100")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.filter.before-authentication-order")
				.hasMessageContaining("below Spring Security's filter order (spring.security.filter.order=-100)"));
	}

	private static FilterRegistrationBean<?> registration(AssertableWebApplicationContext context, String name) {
		return context.getBean(name, FilterRegistrationBean.class);
	}

	/** Runs one request of user alice through a filter and returns what it decided, as {@code rule=subject,...}. */
	private static String rulesDecidedBy(Filter filter) throws Exception {
		MockHttpServletRequest request = request();
		filter.doFilter(request, new MockHttpServletResponse(), new MockFilterChain());
		return checks((Verdict) request.getAttribute(RateLimitFilter.VERDICT_ATTRIBUTE));
	}

	private static MockHttpServletRequest request() {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/items");
		request.setUserPrincipal(() -> "alice");
		return request;
	}

	private static String checks(Verdict verdict) {
		return verdict.checks()
			.stream()
			.map((check) -> check.policy().name() + "=" + check.subject())
			.collect(Collectors.joining(","));
	}

}
