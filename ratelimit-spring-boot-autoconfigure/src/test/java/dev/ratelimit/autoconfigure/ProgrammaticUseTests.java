package dev.ratelimit.autoconfigure;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.RateLimitRules;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's example of using a rule from {@code application.yml} in code, as written there.
 */
class ProgrammaticUseTests {

	@Test
	void aNamedRuleLimitsCallsFromCode() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.rules.sms.match.enabled=false", "ratelimit.rules.sms.limit=2",
					"ratelimit.rules.sms.period=1h")
			.withBean(SmsSender.class)
			.run((context) -> {
				SmsSender sender = context.getBean(SmsSender.class);
				assertThat(sender.send("+4912345", "a")).isTrue();
				assertThat(sender.send("+4912345", "b")).isTrue();
				assertThat(sender.send("+4912345", "c")).isFalse();
				assertThat(sender.send("+4967890", "d")).isTrue();
			});
	}

	static class SmsSender {

		private final RateLimiter limiter;

		private final RateLimitRules rules;

		SmsSender(RateLimiter limiter, RateLimitRules rules) {
			this.limiter = limiter;
			this.rules = rules;
		}

		boolean send(String phoneNumber, String text) {
			Verdict verdict = this.limiter
				.evaluate(RateLimitCheck.of(this.rules.get("sms").orElseThrow().policy(), phoneNumber));
			if (!verdict.allowed()) {
				return false;
			}
			return true;
		}

	}

}
