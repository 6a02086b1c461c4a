package dev.ratelimit.autoconfigure;

import java.time.Duration;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncSettings;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sync}, {@code sync-interval} and {@code sync-threshold} bind and compile into the rule; the limiter decides
 * local rules through a {@link LocalSyncStore} only when a rule has {@code sync: local}; start-up fails naming the
 * property where local mode cannot apply. Nothing here calls Redis (the factory points at a closed port).
 */
class SyncRulesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
				RateLimitAutoConfiguration.class))
		.withBean("redisConnectionFactory", LettuceConnectionFactory.class,
				() -> new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", 1)))
		.withPropertyValues("ratelimit.rules.api.limit=1000", "ratelimit.rules.api.period=1s");

	@Test
	void localModeBindsWithItsDefaultsAndPutsLocalViewsInFrontOfTheStore() {
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local").run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(LocalSyncViews.class);
			RateLimitRule rule = context.getBean(RateLimitRules.class).get("api").orElseThrow();
			assertThat(rule.sync()).isEqualTo(new SyncSettings(Duration.ofMillis(100), 100));
			LocalSyncStore store = context.getBean(LocalSyncViews.class).store();
			assertThat(store.decidesLocally(RateLimitCheck.of(rule.policy(), "client"))).isTrue();
		});
		this.runner
			.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.sync-interval=250ms",
					"ratelimit.rules.api.sync-threshold=7", "ratelimit.rules.other.limit=5",
					"ratelimit.rules.other.period=1m")
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				assertThat(rules.get("api").orElseThrow().sync())
					.isEqualTo(new SyncSettings(Duration.ofMillis(250), 7));
				RateLimitRule other = rules.get("other").orElseThrow();
				assertThat(other.sync()).isNull();
				assertThat(context.getBean(LocalSyncViews.class).store()
					.decidesLocally(RateLimitCheck.of(other.policy(), "client"))).isFalse();
			});
	}

	@Test
	void theThresholdIsATenthOfTheLimitAndAtLeastOne() {
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.limit=5")
			.run((context) -> assertThat(context.getBean(RateLimitRules.class).get("api").orElseThrow().sync())
				.isEqualTo(new SyncSettings(Duration.ofMillis(100), 1)));
	}

	@Test
	void exactModeIsTheDefaultAndAddsNoLocalViews() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(LocalSyncViews.class);
			assertThat(context.getBean(RateLimitRules.class).get("api").orElseThrow().sync()).isNull();
		});
	}

	@Test
	void localModeOnAnAlgorithmWithoutDeltasFailsStartUpNamingSyncAndWhy() {
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.algorithm=sliding-window-log")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining("ratelimit.rules.api.sync")
				.hasMessageContaining("each admission's time")
				.hasMessageContaining("gcra, token-bucket, fixed-window or sliding-window-counter"));
		this.runner
			.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.algorithm=leaky-bucket")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.rules.api.sync")
				.hasMessageContaining("not supported yet"));
	}

	@Test
	void localModeWithWaitingOrABadIntervalOrThresholdFailsStartUpNamingTheProperty() {
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.max-wait=1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.rules.api.sync")
				.hasMessageContaining("max-wait"));
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.sync-interval=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.rules.api.sync-interval"));
		this.runner.withPropertyValues("ratelimit.rules.api.sync=local", "ratelimit.rules.api.sync-threshold=0")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("ratelimit.rules.api.sync-threshold"));
	}

}
