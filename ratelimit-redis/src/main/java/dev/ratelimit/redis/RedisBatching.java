package dev.ratelimit.redis;

/**
 * How the Redis store batches decisions: while its script calls are in flight, requests that arrive wait and the
 * next call carries them together, each still decided all-or-nothing on its own (see {@code docs/engine.md}). A lone
 * request always goes out at once: there is no timer.
 *
 * @param enabled whether to batch at all
 * @param lanes how many script calls may be in flight at once (per hash slot in a Cluster) before requests wait
 * @param maxRequests the most requests one call carries
 * @param maxChecks the most checks one call carries (a request with more goes alone)
 */
public record RedisBatching(boolean enabled, int lanes, int maxRequests, int maxChecks) {

	/** The default: batching on, 2 lanes, up to 64 requests and 256 checks per call. */
	public static final RedisBatching DEFAULT = new RedisBatching(true, 2, 64, 256);

	/** No batching: one script call per decision, sent at once. */
	public static final RedisBatching OFF = new RedisBatching(false, 1, 1, 1);

	/**
	 * @throws IllegalArgumentException when a number is below 1
	 */
	public RedisBatching {
		if (lanes < 1 || maxRequests < 1 || maxChecks < 1) {
			throw new IllegalArgumentException("The lanes, max requests and max checks of Redis batching must be at "
					+ "least 1 but were " + lanes + ", " + maxRequests + " and " + maxChecks);
		}
	}

}
