package dev.ratelimit.ai;

import dev.ratelimit.RateLimitCheck;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.metadata.DefaultUsage;
import org.springframework.ai.chat.metadata.EmptyUsage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What a reported usage counts: the total, or prompt and completion tokens weighted and rounded up; nothing (-1)
 * when the model reported no usage.
 */
class UsageTokensTests {

	@Test
	void theTotalByDefault() {
		assertThat(UsageTokens.TOTAL.count(new DefaultUsage(50, 100))).isEqualTo(150);
		assertThat(UsageTokens.TOTAL.count(new DefaultUsage(50, 100, 170))).as("a provider's own total").isEqualTo(170);
	}

	@Test
	void weightedTokensAreRoundedUp() {
		assertThat(new UsageTokens(1.0, 4.0).count(new DefaultUsage(50, 100))).isEqualTo(450);
		assertThat(new UsageTokens(0.1, null).count(new DefaultUsage(150, 0, 150))).as("0.1 is not exact in binary")
			.isEqualTo(15);
		assertThat(new UsageTokens(0.25, 0.0).count(new DefaultUsage(3, 1000))).isEqualTo(1);
	}

	@Test
	void noUsageCountsNothing() {
		assertThat(UsageTokens.TOTAL.count(null)).isEqualTo(-1);
		assertThat(UsageTokens.TOTAL.count(new EmptyUsage())).isEqualTo(-1);
		assertThat(new UsageTokens(1.0, 1.0).count(new DefaultUsage(0, 0))).isEqualTo(-1);
	}

	@Test
	void countsAreCappedAtTheLargestCost() {
		assertThat(new UsageTokens(1e12, 1.0).count(new DefaultUsage(1_000_000, 0))).isEqualTo(RateLimitCheck.MAX_COST);
	}

	@Test
	void negativeWeightsAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> new UsageTokens(-1.0, null));
		assertThatIllegalArgumentException().isThrownBy(() -> new UsageTokens(null, Double.NaN));
	}

}
