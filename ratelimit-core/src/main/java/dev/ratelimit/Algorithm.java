package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import java.util.Locale;

/**
 * The rate limiting algorithms. Each one exists twice, with identical results: as pure Java reference maths in
 * {@code dev.ratelimit.algorithm} and as Lua in the Redis script.
 */
public enum Algorithm {

	/** Counts requests per window of {@code period}; windows may be offset per key. */
	FIXED_WINDOW(1, false),

	/** Remembers the time of every admitted unit in the last {@code period}: exact, memory grows with the limit. */
	SLIDING_WINDOW_LOG(2, false),

	/** Weights the previous fixed window's count by its overlap with the sliding window: approximate, two counters. */
	SLIDING_WINDOW_COUNTER(3, false),

	/** Holds up to {@code burst} tokens and adds one every {@code period / limit}. */
	TOKEN_BUCKET(4, true),

	/** Fills up to {@code burst} and drains one unit every {@code period / limit} (the leaky bucket as a meter). */
	LEAKY_BUCKET(5, true),

	/** Generic cell rate algorithm: one timestamp per key, smooth spacing of {@code period / limit}, bursts of {@code burst}. */
	GCRA(6, true),

	/**
	 * Caps the requests of one key in flight at once at {@code limit}, across every instance sharing the store: each
	 * admitted request holds a {@link Lease} until it is released, or until the lease timeout (the policy's
	 * {@code period}) has passed without a renewal.
	 */
	CONCURRENCY(7, false),

	/**
	 * Counts the distinct values (e.g. usernames) that each subject presents per window of {@code period}, admitting
	 * at most {@code limit} of them; a value already counted in the window is always admitted. Exact up to a limit of
	 * 512, a HyperLogLog above (see {@link dev.ratelimit.algorithm.Distinct}).
	 */
	DISTINCT(8, false);

	private final int scriptId;

	private final boolean usesBurst;

	Algorithm(int scriptId, boolean usesBurst) {
		this.scriptId = scriptId;
		this.usesBurst = usesBurst;
	}

	/** Returns the numeric code the Lua script dispatches on. */
	public int scriptId() {
		return this.scriptId;
	}

	/** Returns whether {@code burst} means something for this algorithm (the bucket capacity). */
	public boolean usesBurst() {
		return this.usesBurst;
	}

	/**
	 * Returns whether a request may reserve a future slot under this algorithm ({@link RateLimitCheck#maxWait()}):
	 * the buckets and GCRA, whose state is one time that a reservation moves further ahead, so that a slot taken now
	 * for later is exactly an admission at that later time. The windows count admissions in a window that the
	 * reservation's time may not belong to, and a concurrency slot is freed by releases that no store can schedule.
	 */
	public boolean supportsReservations() {
		return this.usesBurst;
	}

	/** Returns the name used in configuration, e.g. {@code sliding-window-log}. */
	public String configName() {
		return name().toLowerCase(Locale.ROOT).replace('_', '-');
	}

	/**
	 * Parses a configuration name such as {@code token-bucket} (case and {@code _}/{@code -} insensitive).
	 * @throws IllegalArgumentException naming the accepted values
	 */
	public static Algorithm fromConfigName(String name) {
		String normalized = name.trim().toUpperCase(Locale.ROOT).replace('-', '_');
		for (Algorithm algorithm : values()) {
			if (algorithm.name().equals(normalized)) {
				return algorithm;
			}
		}
		StringBuilder accepted = new StringBuilder();
		for (Algorithm algorithm : values()) {
			accepted.append(accepted.isEmpty() ? "" : ", ").append(algorithm.configName());
		}
		throw new IllegalArgumentException("Unknown algorithm '" + name + "'; use one of: " + accepted);
	}

}
