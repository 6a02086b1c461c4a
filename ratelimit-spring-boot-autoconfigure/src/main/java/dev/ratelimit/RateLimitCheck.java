package dev.ratelimit;

import java.util.Objects;

/**
 * One check of a request: a policy applied to a subject (the client key as resolved, e.g. an IP address) at a cost.
 * <p>
 * A cost of {@code 0} inspects the state without consuming anything. A {@code shadow} check is evaluated and
 * reported but never denies the request (and never makes another check's decision fail).
 *
 * @param policy the policy
 * @param subject the subject; any string (long or unsafe subjects are hashed before they reach a store key)
 * @param cost units to consume, {@code 0} to inspect only
 * @param shadow whether the check only observes
 */
public record RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow) {

	/** Upper bound of a cost. */
	public static final long MAX_COST = Integer.MAX_VALUE;

	public RateLimitCheck {
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(subject, "subject");
		if (cost < 0 || cost > MAX_COST) {
			throw new IllegalArgumentException("cost must be between 0 and " + MAX_COST + " but was " + cost);
		}
	}

	/** Creates an enforced check of cost 1. */
	public static RateLimitCheck of(RateLimitPolicy policy, String subject) {
		return new RateLimitCheck(policy, subject, 1, false);
	}

	/** Creates an enforced check of the given cost. */
	public static RateLimitCheck of(RateLimitPolicy policy, String subject, long cost) {
		return new RateLimitCheck(policy, subject, cost, false);
	}

	/** Returns this check at another cost, e.g. {@code 0} to inspect what it would consume. */
	public RateLimitCheck withCost(long cost) {
		return new RateLimitCheck(this.policy, this.subject, cost, this.shadow);
	}

	/**
	 * Returns whether this check acquires a {@link Lease} when the request is admitted: a concurrency check of cost
	 * &gt; 0.
	 */
	public boolean acquiresLease() {
		return this.policy.algorithm() == Algorithm.CONCURRENCY && this.cost > 0;
	}

	/** Returns whether this check can deny the request. */
	public boolean enforced() {
		return !this.shadow;
	}

}
