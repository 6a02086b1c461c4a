package dev.ratelimit.algorithm;

import dev.ratelimit.algorithm.SlidingWindowCounter.State;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sliding window counter's rounding, as documented in docs/engine.md.
 */
class SlidingWindowCounterTests {

	private static final long WINDOW = 1_767_225_600_000_000L;

	/**
	 * The previous window's weight is rounded down: right after a window that used the whole limit, one more unit is
	 * admitted, and then the estimate holds again.
	 */
	@Test
	void admitsOneUnitMoreThanTheLimitRightAfterAFullWindow() {
		SlidingWindowCounter counter = new SlidingWindowCounter(1_000_000, 10);
		Outcome<State> full = counter.apply(null, WINDOW + 999_999, 10);
		assertThat(full.allowed()).isTrue();
		assertThat(counter.apply(full.state(), WINDOW + 1_000_000, 1).allowed()).as("at the boundary").isFalse();
		Outcome<State> oneMore = counter.apply(full.state(), WINDOW + 1_000_001, 1);
		assertThat(oneMore.allowed()).as("a microsecond into the next window").isTrue();
		Outcome<State> denied = counter.apply(oneMore.state(), WINDOW + 1_000_001, 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.retryAfterMicros()).as("until the 10 weigh 8").isEqualTo(100_000);
	}

	/** Products beyond 2^53 round: the closed form alone answered a microsecond after the request fitted. */
	@Test
	void retryAfterIsTheFirstMicrosecondThatFitsAlsoWhereProductsRound() {
		SlidingWindowCounter counter = new SlidingWindowCounter(31_622_400_000_000L, 6_071_940);
		State state = new State(2_371_680_000_000_000L, 2_279_340, 2_115_673);
		long now = 2_392_369_135_426_735L;
		long cost = 5_826_065;
		long retry = counter.apply(state, now, cost).retryAfterMicros();
		assertThat(counter.apply(state, now + retry - 1, cost).allowed()).as("a microsecond before").isFalse();
		assertThat(counter.apply(state, now + retry, cost).allowed()).as("at retryAfter").isTrue();
	}

}
