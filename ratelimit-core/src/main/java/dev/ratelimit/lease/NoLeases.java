package dev.ratelimit.lease;

import java.util.List;

/**
 * The lease operations of a store or limiter that grants no leases (the defaults of
 * {@link dev.ratelimit.RateLimiter} and {@link dev.ratelimit.store.RateLimitStore}).
 */
public final class NoLeases {

	private NoLeases() {
	}

	/**
	 * Answers a release or renewal: nothing to do for no leases, else a failure (such leases cannot be its own).
	 * @param owner the store or limiter asked
	 * @param leases the leases
	 * @return an empty list
	 * @throws UnsupportedOperationException when there are leases
	 */
	public static List<Boolean> operate(Object owner, List<Lease> leases) {
		if (!leases.isEmpty()) {
			throw new UnsupportedOperationException(owner.getClass().getName() + " grants no leases");
		}
		return List.of();
	}

}
