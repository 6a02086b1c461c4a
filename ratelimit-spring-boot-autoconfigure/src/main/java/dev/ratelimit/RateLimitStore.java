package dev.ratelimit;

import java.util.List;

/**
 * Where rate limit state lives. Implementations must honour the store contract:
 * <ul>
 * <li>{@link #evaluate} is atomic over all checks: either every enforced check allows and all allowing checks
 * consume their cost, or the request is denied and <strong>nothing is consumed in any check</strong>;</li>
 * <li>the decision of a check that would have allowed a denied request reports its state without this request
 * (as if inspected with cost 0);</li>
 * <li>the checks passed to one call have distinct (policy name, subject) pairs ({@link RateLimiter} merges
 * duplicates);</li>
 * <li>{@link #peek} returns exactly the decisions that {@link #evaluate} would return at that moment, and writes
 * nothing: no quota consumed, no state created, no expiry changed.</li>
 * </ul>
 * The contract is verified by one shared test suite run against every implementation.
 */
public interface RateLimitStore {

	/**
	 * Evaluates all checks of one request atomically.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order
	 */
	List<Decision> evaluate(List<RateLimitCheck> checks);

	/**
	 * Returns the decisions that {@link #evaluate} would return for the checks at this moment (the same verdict, and
	 * for an admitted request the numbers after its consumption), without changing anything: read-only, for
	 * operators' views and for asking what a request of some cost would get.
	 * @param checks the checks, with distinct (policy name, subject) pairs
	 * @return one decision per check, in order
	 */
	List<Decision> peek(List<RateLimitCheck> checks);

	/**
	 * Forgets the state of one subject under one policy, restoring its full quota.
	 * @param policy the policy
	 * @param subject the subject
	 */
	void reset(RateLimitPolicy policy, String subject);

}
