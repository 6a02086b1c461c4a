package dev.ratelimit.rule;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.Algorithm;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.resilience.StoreFailureMode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * {@link RateLimitRule#builder} and {@link RateLimitRule#toBuilder()}, and {@link RuleOverride#applyTo} built on them.
 */
class RateLimitRuleBuilderTests {

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));

	@Test
	void defaultsAreThoseOfARuleFromConfigurationKeyedByIp() {
		RateLimitRule rule = RateLimitRule.builder("api", POLICY).build();
		RateLimitRequest request = mock(RateLimitRequest.class);
		when(request.clientIp()).thenReturn("192.0.2.1");
		assertThat(rule.key().resolve(request)).isEqualTo("192.0.2.1");
		assertThat(rule.match()).isEqualTo(RequestMatch.all());
		assertThat(rule.tiers()).isEmpty();
		assertThat(rule.tierKey()).isNull();
		assertThat(rule.mode()).isEqualTo(RuleMode.ENFORCE);
		assertThat(rule.onStoreFailure()).isEqualTo(StoreFailureMode.LOCAL);
		assertThat(rule.phase()).isEqualTo(RulePhase.BEFORE_AUTHENTICATION);
		assertThat(rule.status()).isEqualTo(DenialStatus.TOO_MANY_REQUESTS);
		assertThat(rule.distinct()).isNull();
		assertThat(rule.countWhen()).isNull();
		assertThat(rule.waiting()).isEqualTo(RuleWaiting.NONE);
	}

	@Test
	void toBuilderKeepsEveryComponent() {
		KeyResolver tierKey = (request) -> "pro";
		RateLimitRule rule = RateLimitRule.builder("api", POLICY)
			.key((request) -> "subject")
			.tiers(Map.of("pro", POLICY), tierKey)
			.mode(RuleMode.SHADOW)
			.onStoreFailure(StoreFailureMode.DENY)
			.phase(RulePhase.AFTER_AUTHENTICATION)
			.status(DenialStatus.SERVICE_UNAVAILABLE)
			.waiting(new RuleWaiting(Duration.ofSeconds(1), 3))
			.build();
		assertThat(rule.toBuilder().build()).isEqualTo(rule);
		assertThat(rule.toBuilder().mode(RuleMode.ENFORCE).build()).isEqualTo(new RateLimitRule(rule.name(),
				rule.match(), rule.key(), rule.policy(), rule.tiers(), rule.tierKey(), rule.cost(), RuleMode.ENFORCE,
				rule.onStoreFailure(), rule.phase(), rule.status(), rule.distinct(), rule.countWhen(), rule.waiting(),
				rule.sync(), rule.exceptions()));
	}

	@Test
	void overrideChangesThePolicyAndModeOnly() {
		KeyResolver tierKey = (request) -> "pro";
		RateLimitRule rule = RateLimitRule.builder("api", POLICY)
			.tiers(Map.of("pro", RateLimitPolicy.of("api", Algorithm.GCRA, 100, Duration.ofMinutes(1))), tierKey)
			.onStoreFailure(StoreFailureMode.ALLOW)
			.build();
		RateLimitRule overridden = new RuleOverride(20L, Duration.ofSeconds(30), null, RuleMode.SHADOW).applyTo(rule);
		assertThat(overridden.policy().limit()).isEqualTo(20);
		assertThat(overridden.policy().period()).isEqualTo(Duration.ofSeconds(30));
		assertThat(overridden.tiers().get("pro").limit()).isEqualTo(100);
		assertThat(overridden.tiers().get("pro").period()).isEqualTo(Duration.ofSeconds(30));
		assertThat(overridden.mode()).isEqualTo(RuleMode.SHADOW);
		assertThat(overridden.tierKey()).isSameAs(tierKey);
		assertThat(overridden.onStoreFailure()).isEqualTo(StoreFailureMode.ALLOW);
	}

	@Test
	void aCompiledRuleHasNoAutomaticPhase() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RateLimitRule.builder("api", POLICY).phase(RulePhase.AUTO).build())
			.withMessageContaining("phase");
	}

}
