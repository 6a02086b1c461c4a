package dev.ratelimit.redis;

import java.util.Locale;
import java.util.Properties;

/**
 * The memory of one Redis node as {@code INFO memory} reports it (which works where {@code CONFIG} is disabled), and
 * what it means for the limiter's keys.
 *
 * @param node the node, {@code host:port}
 * @param policy its {@code maxmemory-policy}, e.g. {@code noeviction} or {@code allkeys-lru}
 * @param usedMemory its {@code used_memory} in bytes
 * @param maxMemory its {@code maxmemory} in bytes, 0 for none
 * @param notCountedForEviction its {@code mem_not_counted_for_evict} in bytes (replication and AOF buffers), which
 * Redis leaves out when it compares its memory with {@code maxmemory}
 */
public record RedisMemory(String node, String policy, long usedMemory, long maxMemory, long notCountedForEviction) {

	/** The only policy under which Redis never evicts a key. */
	public static final String NO_EVICTION = "noeviction";

	/**
	 * Reads the {@code INFO memory} section of a node.
	 * @param node the node, {@code host:port}
	 * @param info the section's fields
	 * @return the node's memory
	 * @throws IllegalArgumentException when a field the limiter needs is missing or not a number
	 */
	public static RedisMemory of(String node, Properties info) {
		String policy = info.getProperty("maxmemory_policy");
		if (policy == null) {
			throw new IllegalArgumentException("INFO memory of " + node + " has no maxmemory_policy");
		}
		return new RedisMemory(node, policy.trim().toLowerCase(Locale.ROOT), bytes(info, "used_memory", node),
				bytes(info, "maxmemory", node), bytes(info, "mem_not_counted_for_evict", node));
	}

	private static long bytes(Properties info, String field, String node) {
		String value = info.getProperty(field);
		if (value == null) {
			return 0;
		}
		try {
			return Long.parseLong(value.trim());
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException("INFO memory of " + node + " has " + field + "=" + value, ex);
		}
	}

	/** Returns whether the node has a memory limit ({@code maxmemory} is not 0). */
	public boolean limited() {
		return this.maxMemory > 0;
	}

	/**
	 * Returns whether Redis may evict the limiter's keys under memory pressure, which silently resets their limits:
	 * every policy but {@code noeviction} may, once a memory limit is set ({@code volatile-*} ones too, because every
	 * limiter key has a TTL).
	 */
	public boolean mayEvictLimiterKeys() {
		return limited() && !NO_EVICTION.equals(this.policy);
	}

	/**
	 * Returns whether Redis refuses writes for memory now: {@code noeviction} and the memory it counts at or above
	 * {@code maxmemory}.
	 */
	public boolean outOfMemory() {
		return limited() && NO_EVICTION.equals(this.policy)
				&& this.usedMemory - this.notCountedForEviction >= this.maxMemory;
	}

	/** Returns {@code used_memory / maxmemory}, or {@code NaN} without a memory limit. */
	public double usage() {
		return limited() ? (double) this.usedMemory / this.maxMemory : Double.NaN;
	}

}
