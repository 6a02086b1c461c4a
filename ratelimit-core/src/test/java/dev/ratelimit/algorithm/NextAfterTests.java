package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.SplittableRandom;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.test.RandomCosts;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Property test of {@link Outcome#nextAfterMicros()}, the IETF draft's {@code t}, for every rate algorithm: over
 * random sequences of requests (time moving forward), it is exactly the first microsecond at which an inspection
 * finds more remaining than now (one microsecond earlier it finds the same), it is zero exactly when nothing is used,
 * and a denial's is never after its {@code retryAfter}, and equal to it for a request of cost 1 (so a client that
 * waits {@code t} after a 429 is admitted).
 */
class NextAfterTests {

	private static final long T0 = 1_700_000_000_000_000L;

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = "CONCURRENCY", mode = EnumSource.Mode.EXCLUDE)
	void nextAfterIsTheFirstMomentOfMoreQuota(Algorithm algorithm) {
		long seed = new SplittableRandom().nextLong();
		SplittableRandom random = new SplittableRandom(seed);
		for (int round = 0; round < 40; round++) {
			RateLimitPolicy policy = policy(random, algorithm);
			LimitAlgorithm<Object> limiter = cast(Algorithms.of(policy, "subject"));
			Object state = null;
			long now = T0 + random.nextLong(policy.periodMicros() * 3);
			for (int step = 0; step < 200; step++) {
				long cost = RandomCosts.of(random, policy);
				Outcome<Object> outcome = limiter.apply(state, now, cost);
				String what = "seed " + seed + ", " + policy + " at " + now + " cost " + cost;
				if (outcome.allowed()) {
					state = outcome.state();
				}
				else if (outcome.retryAfterMicros() != Outcome.NEVER) {
					assertThat(outcome.nextAfterMicros()).as(what).isBetween(1L, outcome.retryAfterMicros());
					if (cost == 1) {
						assertThat(outcome.nextAfterMicros()).as(what).isEqualTo(outcome.retryAfterMicros());
					}
				}
				Outcome<Object> inspected = limiter.apply(state, now, 0);
				assertThat(inspected.nextAfterMicros()).as(what).isEqualTo(outcome.nextAfterMicros());
				long next = inspected.nextAfterMicros();
				if (next == 0) {
					assertThat(inspected.remaining()).as(what).isEqualTo(policy.capacity());
				}
				else {
					assertThat(inspected.remaining()).as(what).isLessThan(policy.capacity());
					assertThat(limiter.apply(state, now + next - 1, 0).remaining()).as(what)
						.isEqualTo(inspected.remaining());
					assertThat(limiter.apply(state, now + next, 0).remaining()).as(what)
						.isGreaterThan(inspected.remaining());
				}
				now += switch (random.nextInt(4)) {
					case 0 -> 0;
					case 1 -> random.nextLong(1, 1 + policy.intervalMicros());
					case 2 -> (next > 0) ? next : 1;
					default -> random.nextLong(1, 1 + policy.periodMicros());
				};
			}
		}
	}

	private static RateLimitPolicy policy(SplittableRandom random, Algorithm algorithm) {
		long limit = random.nextLong(1, 12);
		Duration period = Duration.ofMillis(random.nextLong(limit, 5_000));
		RateLimitPolicy policy = RateLimitPolicy.of("p", algorithm, limit, period);
		if (algorithm.usesBurst() && random.nextBoolean()) {
			policy = policy.withBurst(random.nextLong(1, 20));
		}
		if (algorithm == Algorithm.FIXED_WINDOW && random.nextBoolean()) {
			policy = policy.withSpreadWindows(true);
		}
		return policy;
	}

	@SuppressWarnings("unchecked")
	private static LimitAlgorithm<Object> cast(LimitAlgorithm<?> algorithm) {
		return (LimitAlgorithm<Object>) algorithm;
	}

}
