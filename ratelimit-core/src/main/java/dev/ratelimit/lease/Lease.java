package dev.ratelimit.lease;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import java.util.Objects;

/**
 * The slots that one admitted request holds under a {@link Algorithm#CONCURRENCY concurrency} policy: returned in the
 * request's {@link Decision#lease() decision}, and handed back to {@link RateLimiter#release} when the request ends
 * (or to {@link RateLimiter#renew} to hold the slots longer than the lease timeout).
 * <p>
 * A lease is a handle, not a resource: losing one frees its slots when the lease timeout has passed, as for an
 * instance that crashed.
 *
 * @param policy the concurrency policy
 * @param subject the subject
 * @param id the lease's id, unique per store (all leases of one request share it; their keys differ)
 * @param slots the units held, the request's cost under the policy
 */
public record Lease(RateLimitPolicy policy, String subject, String id, long slots) {

	public Lease {
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(subject, "subject");
		Objects.requireNonNull(id, "id");
		if (policy.algorithm() != Algorithm.CONCURRENCY) {
			throw new IllegalArgumentException("Only a concurrency policy grants leases, not " + policy);
		}
		if (id.isEmpty()) {
			throw new IllegalArgumentException("A lease needs an id");
		}
		if (slots < 1 || slots > RateLimitCheck.MAX_COST) {
			throw new IllegalArgumentException("slots must be between 1 and " + RateLimitCheck.MAX_COST);
		}
	}

}
