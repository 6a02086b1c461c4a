package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Leaky bucket as a meter: each request pours {@code cost} units into a bucket of {@code capacity} that leaks one
 * unit every {@code interval}; a request that would overflow is denied. Leaking is discrete: whole units only, the
 * part of an interval already elapsed is kept.
 * <p>
 * The state is one absolute time, {@code emptyAt}, at which the bucket is empty again (the integer that Redis
 * stores), and the level is derived from it at each request: {@code level = ceil((emptyAt - now) / interval)}. An
 * empty bucket is the same as no state. When the clock steps back, {@code emptyAt} is further away and the bucket
 * looks fuller (above its capacity once {@code emptyAt} is more than {@code capacity} intervals away; then even an
 * inspection is denied), exactly as GCRA's theoretical arrival time does: a step back never drains the bucket, and
 * every wait reported is measured to {@code emptyAt}, so it is kept whatever the clock did before.
 * <p>
 * nextAfter is the time until the bucket has room for one more unit than now.
 * <p>
 * As a meter this is the mirror image of the {@link TokenBucket} (level = capacity - tokens) and admits the same
 * requests; it is kept as its own algorithm because users reason about it in its own terms.
 *
 * @param intervalMicros time to leak one unit, {@code period / limit}
 * @param capacity the burst: the most units the bucket holds
 */
public record LeakyBucket(long intervalMicros, long capacity) implements Reservable<LeakyBucket.State> {

	/** @param emptyAt time at which the bucket is empty again, in microseconds */
	public record State(long emptyAt) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long emptyIn = (state != null) ? Math.max(0, state.emptyAt() - now) : 0;
		long level = -Math.floorDiv(-emptyIn, this.intervalMicros);
		// time since the last whole unit leaked, which the next unit's interval has already used
		long since = level * this.intervalMicros - emptyIn;
		if (cost > this.capacity) {
			return Outcome.never(this.capacity - level, emptyIn, nextAfter(emptyIn), state);
		}
		if (level + cost > this.capacity) {
			return Outcome.denied(this.capacity - level, emptyIn, nextAfter(emptyIn),
					(level + cost - this.capacity) * this.intervalMicros - since, state);
		}
		long reset = emptyIn + cost * this.intervalMicros;
		return Outcome.allowed(this.capacity - level - cost, reset, nextAfter(reset), new State(now + reset), reset);
	}

	/**
	 * Returns the time until a bucket empty in {@code emptyIn} has room for one more unit than now (at least one):
	 * until its level is one below the lower of its level and its capacity.
	 */
	private long nextAfter(long emptyIn) {
		long level = -Math.floorDiv(-emptyIn, this.intervalMicros);
		if (level == 0) {
			return 0;
		}
		return emptyIn - (Math.min(level, this.capacity) - 1) * this.intervalMicros;
	}

	/**
	 * Moves {@code emptyAt} back by {@code cost} intervals, but not before now: no state when that reaches now.
	 */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long emptyAt = state.emptyAt() - cost * this.intervalMicros;
		return (emptyAt > now) ? new State(emptyAt) : null;
	}

	/**
	 * Moves {@code emptyAt} (from now at the earliest) later by {@code units} intervals, past the capacity if it must.
	 */
	@Override
	public @Nullable State charge(@Nullable State state, long now, long admittedAt, long units) {
		long emptyAt = (state != null) ? Math.max(state.emptyAt(), now) : now;
		return new State(emptyAt + units * this.intervalMicros);
	}

	@Override
	public @Nullable State giveBack(State state, long now, long cost) {
		long at = state.emptyAt() - cost * this.intervalMicros;
		return (at > now) ? new State(at) : null;
	}

}
