package dev.ratelimit;

import java.util.List;

/**
 * Decides whether a request may proceed. All checks of one request are evaluated in one atomic call; see
 * {@link RateLimitStore} for the contract.
 */
public interface RateLimiter {

	/**
	 * Evaluates all checks of one request.
	 * @param checks the checks (a policy and subject may appear more than once; their costs are added)
	 * @return the verdict
	 */
	Verdict evaluate(List<RateLimitCheck> checks);

	/** Evaluates a single check. */
	default Verdict evaluate(RateLimitCheck check) {
		return evaluate(List.of(check));
	}

	/**
	 * Forgets a subject's state under a policy everywhere this limiter keeps it, restoring its full quota.
	 * @param policy the policy
	 * @param subject the subject
	 */
	void reset(RateLimitPolicy policy, String subject);

	/** Returns whether one unit for {@code subject} under {@code policy} is admitted, consuming it if so. */
	default boolean tryAcquire(RateLimitPolicy policy, String subject) {
		return evaluate(RateLimitCheck.of(policy, subject)).allowed();
	}

}
