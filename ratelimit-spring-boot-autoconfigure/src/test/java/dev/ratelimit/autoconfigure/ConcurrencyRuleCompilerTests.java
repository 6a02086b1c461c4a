package dev.ratelimit.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A concurrency rule has a lease timeout instead of a period.
 */
class ConcurrencyRuleCompilerTests {

	private final RuleCompiler compiler = new RuleCompiler(new RequestExpressions(null), (name) -> {
		throw new IllegalArgumentException(name);
	});

	@Test
	void concurrencyNeedsNoPeriodAndHoldsLeasesForTheLeaseTimeout() {
		RateLimitProperties.Rule rule = concurrency();
		RateLimitPolicy policy = this.compiler.compile("uploads", rule, "X-Api-Key").policy();
		assertThat(policy.algorithm()).isEqualTo(Algorithm.CONCURRENCY);
		assertThat(policy.limit()).isEqualTo(4);
		assertThat(policy.leaseTimeout()).as("the default").isEqualTo(Duration.ofSeconds(60));
		rule.setLeaseTimeout(Duration.ofMinutes(5));
		rule.setTiers(Map.of("pro", 20L));
		rule.setTierKey("header:X-Plan");
		RateLimitRule compiled = this.compiler.compile("uploads", rule, "X-Api-Key");
		assertThat(compiled.policy().leaseTimeout()).isEqualTo(Duration.ofMinutes(5));
		assertThat(compiled.tiers().get("pro").leaseTimeout()).isEqualTo(Duration.ofMinutes(5));
		assertThat(RuleCompiler.describe(compiled, rule))
			.contains(", key ip, concurrency 4 in flight, lease timeout 5m");
	}

	@Test
	void aPeriodOnAConcurrencyRuleIsRejected() {
		RateLimitProperties.Rule rule = concurrency();
		rule.setPeriod(Duration.ofMinutes(1));
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("uploads", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.uploads.period"))
			.withMessageContaining("lease-timeout");
	}

	@Test
	void anInvalidLeaseTimeoutIsReportedAtItsProperty() {
		RateLimitProperties.Rule rule = concurrency();
		rule.setLeaseTimeout(Duration.ZERO);
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("uploads", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.uploads.lease-timeout"))
			.withMessageContaining("lease-timeout must be positive");
		rule.setLeaseTimeout(null);
		assertThatExceptionOfType(InvalidRateLimitRuleException.class)
			.isThrownBy(() -> this.compiler.compile("uploads", rule, "X-Api-Key"))
			.satisfies((ex) -> assertThat(ex.getProperty()).isEqualTo("ratelimit.rules.uploads.lease-timeout"));
	}

	private static RateLimitProperties.Rule concurrency() {
		RateLimitProperties.Rule rule = new RateLimitProperties.Rule();
		rule.setAlgorithm(RateLimitProperties.RuleAlgorithm.CONCURRENCY);
		rule.setLimit(4L);
		return rule;
	}

}
