package dev.ratelimit.algorithm;

import dev.ratelimit.RateLimitPolicy;

/**
 * Creates the reference algorithm of a policy.
 */
public final class Algorithms {

	private Algorithms() {
	}

	/**
	 * Returns the algorithm for a policy and one subject (the subject matters only for spread fixed windows).
	 * @param policy the policy
	 * @param subject the subject
	 * @return the algorithm
	 */
	public static LimitAlgorithm<?> of(RateLimitPolicy policy, String subject) {
		return switch (policy.algorithm()) {
			case FIXED_WINDOW -> new FixedWindow(policy.periodMicros(), policy.limit(), windowOffset(policy, subject));
			case SLIDING_WINDOW_LOG -> new SlidingWindowLog(policy.periodMicros(), policy.limit());
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(policy.periodMicros(), policy.limit());
			case TOKEN_BUCKET -> new TokenBucket(policy.intervalMicros(), policy.capacity());
			case LEAKY_BUCKET -> new LeakyBucket(policy.intervalMicros(), policy.capacity());
			case GCRA -> new Gcra(policy.intervalMicros(), policy.capacity());
		};
	}

	/** Returns the fixed-window offset of a subject: 0 unless the policy spreads its windows. */
	public static long windowOffset(RateLimitPolicy policy, String subject) {
		return policy.spreadWindows() ? FixedWindow.offsetFor(policy.name() + ':' + subject, policy.periodMicros())
				: 0;
	}

}
