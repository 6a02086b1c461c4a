package dev.ratelimit;

import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class SettlementTests {

	private static final Instant AT = Instant.parse("2026-11-27T12:00:00.000001Z");

	private static Consumption reserved(Algorithm algorithm, long cost) {
		return new Consumption(RateLimitPolicy.of("tokens", algorithm, 1_000, Duration.ofDays(1)), "key-1", cost, AT);
	}

	@Test
	void chargesTheDifferenceAboveTheEstimate() {
		Settlement settlement = new Settlement(reserved(Algorithm.GCRA, 100), 130);
		assertThat(settlement.difference()).isEqualTo(30);
		assertThat(settlement.charged()).isEqualTo(30);
		assertThat(settlement.refunded()).isZero();
		assertThat(settlement.refund()).isNull();
	}

	@Test
	void givesBackTheUnusedPartOfTheEstimateAsARefundCountedAtTheAdmission() {
		Settlement settlement = new Settlement(reserved(Algorithm.FIXED_WINDOW, 100), 0);
		assertThat(settlement.charged()).isZero();
		assertThat(settlement.refund()).isEqualTo(reserved(Algorithm.FIXED_WINDOW, 100));
		assertThat(new Settlement(reserved(Algorithm.FIXED_WINDOW, 100), 60).refund().cost()).isEqualTo(40);
		assertThat(new Settlement(reserved(Algorithm.FIXED_WINDOW, 100), 100).refund()).isNull();
	}

	@Test
	void inspectsItsCheckAtCostZero() {
		Settlement settlement = new Settlement(reserved(Algorithm.TOKEN_BUCKET, 5), 9);
		assertThat(settlement.inspection().cost()).isZero();
		assertThat(settlement.inspection().subject()).isEqualTo("key-1");
		assertThat(settlement.inspection().enforced()).isTrue();
	}

	@Test
	void refusesACostOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> new Settlement(reserved(Algorithm.GCRA, 1), -1))
			.withMessageContaining("actualCost must be between 0 and " + RateLimitCheck.MAX_COST);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Settlement(reserved(Algorithm.GCRA, 1), RateLimitCheck.MAX_COST + 1));
	}

	@Test
	void refusesTheSlidingWindowLogNamingTheAlgorithmsThatSettle() {
		assertThat(Settlement.supports(reserved(Algorithm.SLIDING_WINDOW_LOG, 1).policy())).isFalse();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new Settlement(reserved(Algorithm.SLIDING_WINDOW_LOG, 1), 2))
			.withMessageContaining("'tokens' (sliding-window-log) cannot be settled")
			.withMessageContaining("use gcra, token-bucket");
		for (Algorithm algorithm : new Algorithm[] { Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET,
				Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_COUNTER }) {
			assertThat(Settlement.supports(reserved(algorithm, 1).policy())).as(algorithm.configName()).isTrue();
		}
	}

}
