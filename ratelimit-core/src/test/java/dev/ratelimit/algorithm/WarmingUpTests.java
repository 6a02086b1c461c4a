package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Warm-up on the reference maths (through the in-memory store), on a driven clock: after idleness a key admits about
 * {@code rate / cold-factor} in its first second and the full rate once it has been used for the warm-up period; a
 * client polling just below the cold rate warms the key up (Guava #3552); no or a tiny warm-up never lifts the limit
 * (Guava #2730).
 */
class WarmingUpTests {

	private static final Duration WARM_UP = Duration.ofSeconds(30);

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final LocalRateLimitStore store = new LocalRateLimitStore(1_000, this.clock);

	/** 30 per second, burst 1 (so that a second's admissions are the rate), warming up over 30 s from a third. */
	private static RateLimitPolicy policy(Algorithm algorithm) {
		return new RateLimitPolicy("warm", algorithm, 30, Duration.ofSeconds(1), 1, false, WARM_UP, 3);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET" })
	void coldKeyAdmitsAboutRateOverColdFactorInItsFirstSecondThenTheFullRateAfterWarmUp(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm);
		// a client asking every millisecond, far more than the rate
		assertThat(admittedWithin(policy, Duration.ofSeconds(1))).as("first second, cold: about 30 / 3")
			.isBetween(10L, 12L);
		admittedWithin(policy, WARM_UP);
		assertThat(admittedWithin(policy, Duration.ofSeconds(1))).as("a second after the warm-up period")
			.isBetween(29L, 31L);
		assertThat(inspect(policy).limit()).isEqualTo(30);
		// unused for the warm-up period: cold again
		this.clock.advance(WARM_UP.plusSeconds(1));
		assertThat(inspect(policy).limit()).isEqualTo(10);
		assertThat(admittedWithin(policy, Duration.ofSeconds(1))).isBetween(10L, 12L);
	}

	@Test
	void coldKeyHandsOutAThirdOfItsBurst() {
		RateLimitPolicy policy = new RateLimitPolicy("burst", Algorithm.GCRA, 30, Duration.ofSeconds(1), 30, false,
				WARM_UP, 3);
		long atOnce = 0;
		while (this.store.evaluate(List.of(RateLimitCheck.of(policy, "k"))).get(0).allowed()) {
			atOnce++;
		}
		assertThat(atOnce).isEqualTo(10);
	}

	@Test
	void limitRisesWithUseAndTheHeadersLimitFollowsIt() {
		RateLimitPolicy policy = policy(Algorithm.GCRA);
		long previous = 0;
		for (int second = 0; second < 31; second++) {
			admittedWithin(policy, Duration.ofSeconds(1));
			long limit = inspect(policy).limit();
			assertThat(limit).as("second %d", second).isGreaterThanOrEqualTo(previous).isBetween(10L, 30L);
			previous = limit;
		}
		assertThat(previous).isEqualTo(30);
	}

	/** Guava #3552: stored permits refill as fast as such a poller takes them, so it never warms up there. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET" })
	void pollerJustBelowTheColdRateWarmsTheKeyUp(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm);
		// the cold rate is 10 per second: one every 100 ms; the poller asks every 105 ms
		Duration every = Duration.ofMillis(105);
		long polls = WARM_UP.toMillis() / every.toMillis() + 1;
		for (int i = 0; i < polls; i++) {
			assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, "k"))).get(0).allowed())
				.as("poll %d", i)
				.isTrue();
			this.clock.advance(every);
		}
		assertThat(inspect(policy).limit()).as("warm after the warm-up period of polling").isEqualTo(30);
		assertThat(admittedWithin(policy, Duration.ofSeconds(1))).isBetween(29L, 31L);
	}

	/** Guava #2730: a zero warm-up divided by zero and admitted everything. */
	@Test
	void zeroOrTinyWarmUpNeverLiftsTheLimit() {
		for (Duration warmUp : List.of(Duration.ZERO, Duration.ofNanos(1_000), Duration.ofMillis(1))) {
			RateLimitPolicy policy = new RateLimitPolicy("tiny", Algorithm.GCRA, 30, Duration.ofSeconds(1), 1, false,
					warmUp, 3);
			this.clock.advance(Duration.ofHours(1));
			long admitted = admittedWithin(policy, Duration.ofSeconds(2));
			assertThat(admitted).as("warm-up %s", warmUp).isBetween(20L, 61L);
		}
		assertThatExceptionOfType(RateLimitPolicy.InvalidPolicyException.class)
			.isThrownBy(() -> policy(Algorithm.GCRA).withWarmUp(Duration.ofSeconds(-1), 3))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(RateLimitPolicy.Field.WARM_UP));
		assertThatExceptionOfType(RateLimitPolicy.InvalidPolicyException.class)
			.isThrownBy(() -> policy(Algorithm.GCRA).withWarmUp(WARM_UP, Double.NaN))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(RateLimitPolicy.Field.COLD_FACTOR));
		assertThatExceptionOfType(RateLimitPolicy.InvalidPolicyException.class)
			.isThrownBy(() -> RateLimitPolicy.of("w", Algorithm.FIXED_WINDOW, 1, Duration.ofSeconds(1))
				.withWarmUp(WARM_UP, 3))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(RateLimitPolicy.Field.WARM_UP));
	}

	@Test
	void rateIsBetweenTheColdAndTheFullOneAtEveryWarmth() {
		WarmingUp warming = new WarmingUp(Algorithm.GCRA, 33_334, 30, 30, 1, 3);
		assertThat(warming.rate(0, 0)).isEqualTo(new WarmingUp.Rate(100_002, 10, 10));
		assertThat(warming.rate(0, 1)).isEqualTo(new WarmingUp.Rate(33_334, 30, 30));
		WarmingUp slow = new WarmingUp(Algorithm.TOKEN_BUCKET, 1_000, 7, 7, 1_000_000, 100);
		for (long elapsed = 0; elapsed <= 1_000_000; elapsed += 9_973) {
			WarmingUp.Rate rate = slow.rate(0, elapsed);
			assertThat(rate.intervalMicros()).isBetween(1_000L, 100_000L);
			assertThat(rate.capacity()).isBetween(1L, 7L);
		}
	}

	private Decision inspect(RateLimitPolicy policy) {
		return this.store.peek(List.of(new RateLimitCheck(policy, "k", 0, false))).get(0);
	}

	/** Asks every millisecond for a while; returns how many were admitted. */
	private long admittedWithin(RateLimitPolicy policy, Duration duration) {
		long admitted = 0;
		for (long ms = 0; ms < duration.toMillis(); ms++) {
			if (this.store.evaluate(List.of(RateLimitCheck.of(policy, "k"))).get(0).allowed()) {
				admitted++;
			}
			this.clock.advance(Duration.ofMillis(1));
		}
		return admitted;
	}

}
