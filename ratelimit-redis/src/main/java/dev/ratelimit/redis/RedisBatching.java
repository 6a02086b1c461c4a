package dev.ratelimit.redis;

/**
 * How the Redis store batches decisions: while its script calls are in flight, requests that arrive wait and the
 * next call carries them together, each still decided all-or-nothing on its own (see {@code docs/engine.md}). A lone
 * request always goes out at once: there is no timer.
 *
 * @param enabled whether to batch at all
 * @param lanes how many script calls may be in flight at once (per master, or per hash slot, in a Cluster) before
 * requests wait
 * @param maxRequests the most requests one call carries
 * @param maxChecks the most checks one call carries (a request with more goes alone)
 * @param acrossSlots in a Redis Cluster of Redis 7 or later, whether a call carries the GCRA requests of one master
 * whatever their hash slots (decision 140), rather than those of one slot; a Cluster of older servers keeps to one slot
 */
public record RedisBatching(boolean enabled, int lanes, int maxRequests, int maxChecks, boolean acrossSlots) {

	/** The default: batching on, 2 lanes, up to 64 requests and 256 checks per call, across slots in a Cluster. */
	public static final RedisBatching DEFAULT = new RedisBatching(true, 2, 64, 256);

	/** No batching: one script call per decision, sent at once. */
	public static final RedisBatching OFF = new RedisBatching(false, 1, 1, 1, false);

	/**
	 * @throws IllegalArgumentException when a number is below 1
	 */
	public RedisBatching {
		if (lanes < 1 || maxRequests < 1 || maxChecks < 1) {
			throw new IllegalArgumentException("The lanes, max requests and max checks of Redis batching must be at "
					+ "least 1 but were " + lanes + ", " + maxRequests + " and " + maxChecks);
		}
	}

	/**
	 * Batching that, in a Redis Cluster, carries one master's requests across hash slots.
	 * @param enabled whether to batch at all
	 * @param lanes how many script calls may be in flight at once
	 * @param maxRequests the most requests one call carries
	 * @param maxChecks the most checks one call carries
	 */
	public RedisBatching(boolean enabled, int lanes, int maxRequests, int maxChecks) {
		this(enabled, lanes, maxRequests, maxChecks, true);
	}

}
