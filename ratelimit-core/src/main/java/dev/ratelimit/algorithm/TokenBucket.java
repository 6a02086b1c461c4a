package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Token bucket: holds up to {@code capacity} tokens and gains one every {@code interval}; a request takes
 * {@code cost} tokens. Refill is discrete: whole tokens only, the part of an interval already elapsed is kept.
 * <p>
 * The state is one absolute time, {@code fullAt}, at which the bucket is full again (the integer that Redis stores),
 * and the tokens are derived from it at each request: {@code tokens = capacity - ceil((fullAt - now) / interval)}.
 * A full bucket is the same as no state. When the clock steps back, {@code fullAt} is further away and the bucket
 * looks emptier (below zero tokens once {@code fullAt} is more than {@code capacity} intervals away; then even an
 * inspection is denied), exactly as GCRA's theoretical arrival time does: a step back never gives tokens back, and
 * every wait reported is measured to {@code fullAt}, so it is kept whatever the clock did before.
 * <ul>
 * <li>remaining = tokens after the request (never negative)</li>
 * <li>resetAfter = {@code fullAt - now}</li>
 * <li>nextAfter = time until the next token comes in (to at least one token when the clock stepped back)</li>
 * <li>retryAfter = time until {@code cost} tokens are there,
 * {@code fullAt + cost * interval - capacity * interval - now}</li>
 * </ul>
 *
 * @param intervalMicros time to gain one token, {@code period / limit}
 * @param capacity the burst: the most tokens the bucket holds
 */
public record TokenBucket(long intervalMicros, long capacity)
		implements Reservable<TokenBucket.State>, Syncable<TokenBucket.State> {

	/** @param fullAt time at which the bucket is full again, in microseconds */
	public record State(long fullAt) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long fullIn = (state != null) ? Math.max(0, state.fullAt() - now) : 0;
		long missing = -Math.floorDiv(-fullIn, this.intervalMicros);
		long tokens = this.capacity - missing;
		// time since the last whole token came in, which the next token's interval has already used
		long since = missing * this.intervalMicros - fullIn;
		if (cost > this.capacity) {
			return Outcome.never(tokens, fullIn, nextAfter(fullIn), state);
		}
		if (tokens < cost) {
			return Outcome.denied(tokens, fullIn, nextAfter(fullIn), (cost - tokens) * this.intervalMicros - since,
					state);
		}
		long reset = fullIn + cost * this.intervalMicros;
		return Outcome.allowed(tokens - cost, reset, nextAfter(reset), new State(now + reset), reset);
	}

	/** Returns the time until one more token than now (at least one) is in a bucket full in {@code fullIn}. */
	private long nextAfter(long fullIn) {
		long missing = -Math.floorDiv(-fullIn, this.intervalMicros);
		if (missing == 0) {
			return 0;
		}
		long tokens = Math.max(0, this.capacity - missing);
		return fullIn - (this.capacity - tokens - 1) * this.intervalMicros;
	}

	/**
	 * Moves {@code fullAt} back by {@code cost} intervals, but not before now: no state when that reaches now.
	 */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long fullAt = state.fullAt() - cost * this.intervalMicros;
		return (fullAt > now) ? new State(fullAt) : null;
	}

	@Override
	public @Nullable State giveBack(State state, long now, long cost) {
		long at = state.fullAt() - cost * this.intervalMicros;
		return (at > now) ? new State(at) : null;
	}

	/**
	 * Moves the time the bucket is full (from now at the earliest) later by {@code units} intervals: a bucket may so
	 * owe tokens, which it pays back before it admits again.
	 */
	@Override
	public @Nullable State absorb(@Nullable State state, long now, long units, long window) {
		if (units == 0) {
			return state;
		}
		long fullAt = (state != null) ? Math.max(state.fullAt(), now) : now;
		return new State(fullAt + units * this.intervalMicros);
	}

}
