package dev.ratelimit.algorithm;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;

/**
 * Creates the reference algorithm of a policy.
 */
public final class Algorithms {

	private Algorithms() {
	}

	/**
	 * Returns the algorithm for a policy and one subject (the subject matters only for spread fixed windows). A
	 * concurrency limit gets the lease id {@code ""}: enough to inspect and peek, not to acquire.
	 * @param policy the policy
	 * @param subject the subject
	 * @return the algorithm
	 */
	public static LimitAlgorithm<?> of(RateLimitPolicy policy, String subject) {
		return of(policy, subject, "");
	}

	/**
	 * Returns the algorithm for a policy and one subject, with the lease id that a concurrency limit acquires under.
	 * @param policy the policy
	 * @param subject the subject
	 * @param leaseId the lease id of the request (ignored by the other algorithms)
	 * @return the algorithm
	 */
	public static LimitAlgorithm<?> of(RateLimitPolicy policy, String subject, String leaseId) {
		return of(policy, subject, leaseId, "");
	}

	/**
	 * Returns the algorithm for one check of a request.
	 * @param check the check
	 * @param leaseId the lease id of the request (ignored by the algorithms other than concurrency)
	 * @return the algorithm
	 */
	public static LimitAlgorithm<?> of(RateLimitCheck check, String leaseId) {
		String value = check.distinctValue();
		return of(check.policy(), check.subject(), leaseId, (value != null) ? value : "");
	}

	private static LimitAlgorithm<?> of(RateLimitPolicy policy, String subject, String leaseId, String value) {
		if (policy.warmsUp()) {
			return new WarmingUp(policy.algorithm(), policy.intervalMicros(), policy.capacity(), policy.limit(),
					policy.warmUpMicros(), policy.coldFactor());
		}
		return switch (policy.algorithm()) {
			case FIXED_WINDOW -> (policy.calendar() != null) ? new CalendarWindow(policy.calendar(), policy.limit())
					: new FixedWindow(policy.periodMicros(), policy.limit(), windowOffset(policy, subject));
			case SLIDING_WINDOW_LOG -> new SlidingWindowLog(policy.periodMicros(), policy.limit());
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter(policy.periodMicros(), policy.limit());
			case TOKEN_BUCKET -> new TokenBucket(policy.intervalMicros(), policy.capacity());
			case LEAKY_BUCKET -> new LeakyBucket(policy.intervalMicros(), policy.capacity());
			case GCRA -> new Gcra(policy.intervalMicros(), policy.capacity());
			case CONCURRENCY -> new Concurrency(policy.periodMicros(), policy.limit(), leaseId);
			case DISTINCT -> new Distinct(policy.periodMicros(), policy.limit(), value);
		};
	}

	/** Returns the fixed-window offset of a subject: 0 unless the policy spreads its windows. */
	public static long windowOffset(RateLimitPolicy policy, String subject) {
		return policy.spreadWindows() ? FixedWindow.offsetFor(policy.name() + ':' + subject, policy.periodMicros())
				: 0;
	}

}
