package dev.ratelimit.aop;

import java.util.concurrent.CompletableFuture;

import dev.ratelimit.DenialStatus;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimit;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @RateLimited(rule = "<adaptive-concurrency rule>")}: a call takes a place under the rule's limit for as long
 * as it runs, a full limit throws before any rate is consumed, and a rate's attributes on it fail start-up.
 */
class AdaptiveRateLimitedTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.one-at-a-time.algorithm=adaptive-concurrency",
				"ratelimit.rules.one-at-a-time.match.enabled=false",
				"ratelimit.rules.one-at-a-time.adaptive.strategy=aimd",
				"ratelimit.rules.one-at-a-time.adaptive.initial-limit=1",
				"ratelimit.rules.one-at-a-time.adaptive.min-limit=1",
				"ratelimit.rules.one-at-a-time.adaptive.max-limit=1");

	@Test
	void aCallHoldsItsPlaceUntilItEndsAndAFullLimitThrowsBeforeAnyRateIsConsumed() {
		this.runner.withBean(Jobs.class).run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			AdaptiveConcurrencyLimit limit = context.getBean(AdaptiveConcurrencyLimits.class).get("one-at-a-time")
				.orElseThrow();
			CompletableFuture<String> running = jobs.later();
			assertThat(limit.inFlight()).isOne();
			assertThatExceptionOfType(AdaptiveLimitExceededException.class).isThrownBy(jobs::later)
				.isInstanceOf(RateLimitExceededException.class)
				.satisfies((ex) -> {
					assertThat(ex.getDenial().rule()).isEqualTo("one-at-a-time");
					assertThat(ex.getStatus()).isEqualTo(DenialStatus.SERVICE_UNAVAILABLE);
					assertThat(ex.getVerdict().checks()).as("no rate was evaluated").isEmpty();
				});
			assertThat(limit.denied()).isOne();
			running.complete("done");
			assertThat(limit.inFlight()).isZero();
			assertThat(jobs.run()).isEqualTo("ran");
			assertThat(limit.inFlight()).as("a returning call gives its place back").isZero();
			assertThatIllegalStateException().isThrownBy(jobs::fail);
			assertThat(limit.inFlight()).as("so does a throwing one").isZero();
			assertThat(jobs.rated()).isEqualTo("rated");
			assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(jobs::rated)
				.isNotInstanceOf(AdaptiveLimitExceededException.class);
			assertThat(limit.inFlight()).as("a call denied by its rate gives its place back").isZero();
			assertThat(limit.allowed()).as("every call but the denied one took a place").isEqualTo(5);
		});
	}

	@Test
	void aKeyOnAnAnnotationNamingAnAdaptiveRuleFailsStartUp() {
		this.runner.withBean(KeyedJobs.class).run((context) -> assertThat(context.getStartupFailure())
			.hasMessageContaining("(key)").hasMessageContaining("adaptive-concurrency rule 'one-at-a-time'"));
	}

	static class Jobs {

		@RateLimited(rule = "one-at-a-time")
		public CompletableFuture<String> later() {
			return new CompletableFuture<>();
		}

		@RateLimited(rule = "one-at-a-time")
		public String run() {
			return "ran";
		}

		@RateLimited(rule = "one-at-a-time")
		public String fail() {
			throw new IllegalStateException("fails");
		}

		@RateLimited(rule = "one-at-a-time")
		@RateLimited(name = "rated", limit = 1, period = "1h")
		public String rated() {
			return "rated";
		}

	}

	static class KeyedJobs {

		@RateLimited(rule = "one-at-a-time", key = "#user")
		public String run(String user) {
			return user;
		}

	}

}
