package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ratelimit.rules.<name>.exceptions} bind and compile into per-subject policies with the rule's algorithm,
 * period and policy name; start-up fails naming the property for an invalid exception.
 */
class ExceptionRulesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.key=header:X-User", "ratelimit.rules.api.limit=100",
				"ratelimit.rules.api.period=1m");

	@Test
	void anExceptionKeepsTheRulesAlgorithmPeriodAndPolicyNameWithItsOwnLimit() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.exceptions.user-42=1000",
					"ratelimit.rules.api.exceptions.[198.51.100.0/24]=5", "ratelimit.rules.api.algorithm=token-bucket",
					"ratelimit.rules.api.burst=150")
			.run((context) -> {
				RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
				assertThat(rule.exceptions()).containsOnlyKeys("user-42", "198.51.100.0/24");
				assertThat(rule.exceptions().get("user-42").limit()).isEqualTo(1000);
				assertThat(rule.exceptions().get("user-42").capacity()).as("the exception's burst is its limit")
					.isEqualTo(1000);
				assertThat(rule.exceptions().get("user-42").period()).isEqualTo(Duration.ofMinutes(1));
				assertThat(rule.exceptions().get("user-42").algorithm()).isEqualTo(rule.policy().algorithm());
				assertThat(rule.exceptions().get("user-42").name()).isEqualTo(rule.policy().name());
				assertThat(rule.exceptions().get("198.51.100.0/24").limit()).isEqualTo(5);
			});
		this.runner.run((context) -> assertThat(
				context.getBean(RateLimitRules.class).get("api").orElseThrow().exceptions()).isEmpty());
	}

	@Test
	void anInvalidExceptionFailsStartUpNamingTheProperty() {
		assertFails("ratelimit.rules.api.exceptions.user-42", "limit must be at least 1 but was -5",
				"ratelimit.rules.api.exceptions.user-42=-5");
		assertFails("ratelimit.rules.api.exceptions.user-42", "limit must be at least 1 but was 0",
				"ratelimit.rules.api.exceptions.user-42=0");
		assertFails("ratelimit.rules.api.exceptions", "more than ratelimit.exceptions.max-per-rule (1)",
				"ratelimit.exceptions.max-per-rule=1", "ratelimit.rules.api.exceptions.a=1",
				"ratelimit.rules.api.exceptions.b=2");
		this.runner.withPropertyValues("ratelimit.exceptions.max-per-rule=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.isInstanceOf(InvalidRateLimitConfigurationException.class)
				.hasMessageContaining("ratelimit.exceptions.max-per-rule");
		});
	}

	private void assertFails(String property, String problem, String... properties) {
		this.runner.withPropertyValues(properties).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			while (!(failure instanceof InvalidRateLimitRuleException) && failure.getCause() != null) {
				failure = failure.getCause();
			}
			assertThat(failure).isInstanceOf(InvalidRateLimitRuleException.class);
			assertThat(((InvalidRateLimitRuleException) failure).getProperty()).isEqualTo(property);
			assertThat(failure).hasMessageContaining(problem);
		});
	}

}
