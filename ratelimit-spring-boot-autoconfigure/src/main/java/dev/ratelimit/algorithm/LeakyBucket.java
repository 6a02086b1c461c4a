package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Leaky bucket as a meter: each request pours {@code cost} units into a bucket of {@code capacity} that leaks one
 * unit every {@code interval}; a request that would overflow is denied. Leaking is discrete: whole units only, the
 * fraction of an interval already elapsed is kept in {@code last}. An empty bucket is the same as no state.
 * <p>
 * As a meter this is the mirror image of the {@link TokenBucket} (level = capacity - tokens) and admits the same
 * requests; it is kept as its own algorithm because users reason about it in its own terms.
 *
 * @param intervalMicros time to leak one unit, {@code period / limit}
 * @param capacity the burst: the most units the bucket holds
 */
public record LeakyBucket(long intervalMicros, long capacity) implements LimitAlgorithm<LeakyBucket.State> {

	/**
	 * @param level units in the bucket
	 * @param last time at which the last whole unit leaked, in microseconds
	 */
	public record State(long level, long last) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long level = 0;
		long last = now;
		if (state != null) {
			level = state.level();
			last = state.last();
			if (now > last) {
				long leaked = (now - last) / this.intervalMicros;
				level = Math.max(0, level - leaked);
				last = (level == 0) ? now : last + leaked * this.intervalMicros;
			}
		}
		long sinceLast = Math.max(0, now - last);
		if (cost > this.capacity) {
			return Outcome.never(this.capacity - level, untilEmpty(level, sinceLast), state);
		}
		if (level + cost > this.capacity) {
			return Outcome.denied(this.capacity - level, untilEmpty(level, sinceLast),
					(level + cost - this.capacity) * this.intervalMicros - sinceLast, state);
		}
		long filled = level + cost;
		long reset = untilEmpty(filled, sinceLast);
		return Outcome.allowed(this.capacity - filled, reset, new State(filled, last), reset);
	}

	private long untilEmpty(long level, long sinceLast) {
		return (level == 0) ? 0 : level * this.intervalMicros - sinceLast;
	}

}
