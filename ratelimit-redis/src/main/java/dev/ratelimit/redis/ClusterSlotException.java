package dev.ratelimit.redis;

import dev.ratelimit.store.RateLimitStoreException;

/**
 * The failure of the script call of one hash slot of a request whose checks span several slots of a Redis Cluster,
 * so that the failure can be blamed on the node that serves that slot rather than on every node the request touched.
 */
final class ClusterSlotException extends RateLimitStoreException {

	private final int slot;

	/**
	 * @param slot the hash slot whose call failed
	 * @param cause what it failed with
	 */
	ClusterSlotException(int slot, Throwable cause) {
		super("Redis failed for slot " + slot + ": " + cause.getMessage(), cause);
		this.slot = slot;
	}

	/** Returns the hash slot whose call failed. */
	int slot() {
		return this.slot;
	}

}
