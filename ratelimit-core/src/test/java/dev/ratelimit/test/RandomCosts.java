package dev.ratelimit.test;

import java.util.SplittableRandom;

import dev.ratelimit.RateLimitPolicy;

/**
 * Random request costs for property and differential tests.
 */
public final class RandomCosts {

	private RandomCosts() {
	}

	/**
	 * Returns a cost for a request under a policy: mostly 1, sometimes 0 (an inspection), often up to the capacity,
	 * and sometimes beyond it (never admitted).
	 * @param random the source of randomness
	 * @param policy the policy
	 * @return the cost
	 */
	public static long of(SplittableRandom random, RateLimitPolicy policy) {
		int kind = random.nextInt(100);
		if (kind < 70) {
			return 1;
		}
		if (kind < 75) {
			return 0;
		}
		if (kind < 97) {
			return random.nextLong(1, policy.capacity() + 1);
		}
		return policy.capacity() + random.nextLong(1, 5);
	}

}
