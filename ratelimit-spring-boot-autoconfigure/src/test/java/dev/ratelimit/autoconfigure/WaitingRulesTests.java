package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleWaiting;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code max-wait} and {@code max-waiting} bind, compile into the rule's checks, and fail start-up naming the property
 * where they cannot apply.
 */
class WaitingRulesTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1s");

	@Test
	void maxWaitAndMaxWaitingBindAndReachTheRulesChecks() {
		this.runner.withPropertyValues("ratelimit.rules.api.max-wait=5s", "ratelimit.rules.api.max-waiting=7")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
				assertThat(rule.waiting()).isEqualTo(new RuleWaiting(Duration.ofSeconds(5), 7));
				assertThat(rule.check(rule.policy(), "client", 1).maxWait()).isEqualTo(Duration.ofSeconds(5));
			});
	}

	@Test
	void byDefaultRequestsDoNotWait() {
		this.runner.run((context) -> {
			RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
			assertThat(rule.waiting()).isEqualTo(RuleWaiting.NONE);
			assertThat(rule.check(rule.policy(), "client", 1).maxWait()).isZero();
		});
	}

	@Test
	void maxWaitOnAWindowAlgorithmFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.algorithm=sliding-window-log", "ratelimit.rules.api.max-wait=1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.api.max-wait")
				.hasMessageContaining("gcra, token-bucket or leaky-bucket"));
	}

	@Test
	void maxWaitOnADistinctRuleFailsStartUpNamingTheProperty() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.algorithm=distinct", "ratelimit.rules.api.distinct=header:X-User",
					"ratelimit.rules.api.max-wait=1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.api.max-wait")
				.hasMessageContaining("distinct cannot reserve"));
	}

	@Test
	void maxWaitingBelowOneFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.rules.api.max-wait=1s", "ratelimit.rules.api.max-waiting=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.api.max-waiting"));
	}

	@Test
	void aNegativeMaxWaitFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.rules.api.max-wait=-1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.api.max-wait"));
	}

}
