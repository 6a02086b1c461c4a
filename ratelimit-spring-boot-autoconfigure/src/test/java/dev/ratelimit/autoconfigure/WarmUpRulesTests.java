package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code warm-up} and {@code cold-factor} bind and compile into the rule's policies (tiers too); start-up fails naming
 * the property where warm-up cannot apply.
 */
class WarmUpRulesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.api.limit=100", "ratelimit.rules.api.period=1s");

	@Test
	void warmUpBindsWithTheDefaultColdFactorAndAppliesToTiers() {
		this.runner
			.withPropertyValues("ratelimit.rules.api.warm-up=30s", "ratelimit.rules.api.tiers.pro=1000",
					"ratelimit.rules.api.tier-key=header:X-Plan")
			.run((context) -> {
				RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
				assertThat(rule.policy().warmUp()).isEqualTo(Duration.ofSeconds(30));
				assertThat(rule.policy().coldFactor()).isEqualTo(3);
				assertThat(rule.policy().warmsUp()).isTrue();
				assertThat(rule.tiers().get("pro").warmUp()).isEqualTo(Duration.ofSeconds(30));
			});
		this.runner.withPropertyValues("ratelimit.rules.api.algorithm=token-bucket", "ratelimit.rules.api.warm-up=1m",
				"ratelimit.rules.api.cold-factor=2.5").run((context) -> {
					RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
					assertThat(rule.policy().coldFactor()).isEqualTo(2.5);
				});
		this.runner.run((context) -> assertThat(
				context.getBean(RateLimitRules.class).get("api").orElseThrow().policy().warmsUp()).isFalse());
	}

	@Test
	void warmUpWhereItCannotApplyFailsStartUpNamingTheProperty() {
		assertFails("ratelimit.rules.api.warm-up", "warm-up applies to gcra and token-bucket only",
				"ratelimit.rules.api.algorithm=fixed-window", "ratelimit.rules.api.warm-up=10s");
		assertFails("ratelimit.rules.api.warm-up", "no reservations (max-wait)", "ratelimit.rules.api.warm-up=10s",
				"ratelimit.rules.api.max-wait=1s");
		assertFails("ratelimit.rules.api.warm-up", "must be between 0 and 366d",
				"ratelimit.rules.api.warm-up=-1s");
		assertFails("ratelimit.rules.api.cold-factor", "cold-factor must be between 1 and 100",
				"ratelimit.rules.api.warm-up=10s", "ratelimit.rules.api.cold-factor=0.5");
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
