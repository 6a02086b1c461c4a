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
	 * Releases the leases of a request that ended ({@link Verdict#leases()}); see {@link RateLimitStore#release}.
	 * Call it once however the request ends (completed, failed, timed out); a second call is harmless.
	 * <p>
	 * The default suits a limiter that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it was held until this call ({@code false}: it had expired or was released)
	 */
	default List<Boolean> release(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Renews the leases of a request that runs longer than their lease timeout; see {@link RateLimitStore#renew}.
	 * <p>
	 * The default suits a limiter that grants no leases: it fails for any lease.
	 * @param leases the leases
	 * @return for each lease, whether it is held and renewed
	 */
	default List<Boolean> renew(List<Lease> leases) {
		return NoLeases.operate(this, leases);
	}

	/**
	 * Gives back what admitted checks consumed ({@link Verdict#consumptions()}); see {@link RateLimitStore#refund}
	 * for what that means per algorithm. Call it once per consumption, e.g. when the request ended with an outcome its
	 * rule does not count ({@code count-when}).
	 * <p>
	 * The default fails: a limiter that keeps no state cannot refund.
	 * @param consumptions what the checks consumed
	 * @return for each consumption, its check's state after the refund
	 */
	default List<Decision> refund(List<Consumption> consumptions) {
		throw new UnsupportedOperationException(getClass().getName() + " cannot refund");
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
