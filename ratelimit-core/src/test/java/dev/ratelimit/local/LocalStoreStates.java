package dev.ratelimit.local;

import java.util.Map;
import java.util.TreeMap;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Concurrency;

/**
 * Reads the state of a {@link LocalRateLimitStore} for tests in other packages.
 */
public final class LocalStoreStates {

	private LocalStoreStates() {
	}

	/**
	 * Returns the lease slots the store keeps for a subject under a concurrency policy, member to expiry, as Redis's
	 * sorted set would hold them.
	 * @param store the store
	 * @param policy the concurrency policy
	 * @param subject the subject
	 * @return the slots, empty when there is no state
	 */
	public static Map<String, Long> leaseSlots(LocalRateLimitStore store, RateLimitPolicy policy, String subject) {
		Map<String, Long> slots = new TreeMap<>();
		if (store.state(policy, subject) instanceof Concurrency.State state) {
			state.slots().forEach((slot) -> slots.put(slot.member(), slot.expiresAt()));
		}
		return slots;
	}

}
