package dev.ratelimit;

import java.util.List;

/**
 * The lease operations of a store or limiter that grants no leases.
 */
final class NoLeases {

	private NoLeases() {
	}

	/**
	 * Answers a release or renewal: nothing to do for no leases, else a failure (such leases cannot be its own).
	 * @param owner the store or limiter asked
	 * @param leases the leases
	 * @return an empty list
	 * @throws UnsupportedOperationException when there are leases
	 */
	static List<Boolean> operate(Object owner, List<Lease> leases) {
		if (!leases.isEmpty()) {
			throw new UnsupportedOperationException(owner.getClass().getName() + " grants no leases");
		}
		return List.of();
	}

}
