package dev.ratelimit.sync;

import java.time.Duration;
import java.util.Objects;

/**
 * How a rule in {@code sync: local} mode flushes.
 *
 * @param interval how often a view's admissions are sent (a view with none is not)
 * @param threshold the unsynchronized units at which a view flushes at once, and a request that would go beyond waits
 * for that flush: what bounds the over-admission (see {@code docs/consistency.md})
 */
public record SyncSettings(Duration interval, long threshold) {

	public SyncSettings {
		Objects.requireNonNull(interval, "interval");
		if (interval.isNegative() || interval.isZero()) {
			throw new IllegalArgumentException("The sync interval must be positive but was " + interval);
		}
		if (threshold < 1) {
			throw new IllegalArgumentException("The sync threshold must be at least 1 but was " + threshold);
		}
	}

	/**
	 * The defaults for a limit: every 100 ms, or at 10% of the limit (at least 1).
	 * @param limit the limit
	 * @return the settings
	 */
	public static SyncSettings defaults(long limit) {
		return new SyncSettings(Duration.ofMillis(100), Math.max(1, limit / 10));
	}

}
