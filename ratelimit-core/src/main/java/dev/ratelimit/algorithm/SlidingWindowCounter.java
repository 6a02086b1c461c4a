package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Sliding window counter: two fixed windows of {@code period} (aligned to multiples of it); the previous window's
 * count is weighted by how much of it the sliding window still overlaps.
 * <ul>
 * <li>estimate = {@code floor(previous * (period - elapsed) / period) + current}, {@code elapsed} being the time
 * since the current window started; computed in IEEE-754 doubles, exactly as the Lua script computes it, so that
 * large products round the same way on both sides. Rounded down, the weighted count plus the cost can exceed the
 * limit by less than one unit: right after a window that used the whole limit, one more unit is admitted (rounding
 * up instead would hold a client at the limit to {@code limit - 1} per window)</li>
 * <li>remaining = {@code limit - estimate}</li>
 * <li>retryAfter = the first microsecond at which {@code estimate + cost <= limit}, looking into the next window if
 * the current count alone is too high</li>
 * <li>resetAfter = time until both counted windows have slid out</li>
 * <li>nextAfter = the first microsecond at which the estimate is one lower than now: while the previous window
 * still weighs, when its weight drops by one; else, in the next window, when the current count starts sliding
 * out</li>
 * </ul>
 * A state from a later window (the clock stepped back out of it) stays the current window, seen from its start
 * (the previous window at full weight), until the clock reaches it; one from an earlier window counts as empty
 * unless it is the previous one, and one off this policy's grid of windows (its period changed) counts as empty.
 *
 * @param periodMicros the window length
 * @param limit units per window
 */
public record SlidingWindowCounter(long periodMicros, long limit)
		implements LimitAlgorithm<SlidingWindowCounter.State>, Syncable<SlidingWindowCounter.State> {

	/**
	 * @param windowStart start of the current window, in microseconds
	 * @param previous units admitted in the window before it
	 * @param current units admitted in the current window
	 */
	public record State(long windowStart, long previous, long current) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long windowStart = Math.floorDiv(now, this.periodMicros) * this.periodMicros;
		long previous = 0;
		long current = 0;
		if (state != null && state.windowStart() >= windowStart
				&& Math.floorMod(state.windowStart(), this.periodMicros) == 0) {
			// the current window, or a later one that the clock stepped back out of
			windowStart = state.windowStart();
			previous = state.previous();
			current = state.current();
		}
		else if (state != null && state.windowStart() == windowStart - this.periodMicros) {
			previous = state.current();
		}
		// negative in a later window: retryAfter and resetAfter are measured from now, the weight from its start
		long elapsed = now - windowStart;
		long estimate = weighted(previous, this.periodMicros - Math.max(0, elapsed)) + current;
		if (cost > this.limit) {
			return Outcome.never(this.limit - estimate, untilEmpty(windowStart, previous, current, now),
					nextAfter(previous, current, elapsed), state);
		}
		if (estimate + cost > this.limit) {
			long retry;
			if (current + cost <= this.limit) {
				retry = firstFit(previous, this.limit - current - cost) - elapsed;
			}
			else {
				retry = this.periodMicros - elapsed + firstFit(current, this.limit - cost);
			}
			return Outcome.denied(this.limit - estimate, untilEmpty(windowStart, previous, current, now),
					nextAfter(previous, current, elapsed), retry, state);
		}
		long counted = current + cost;
		long reset = untilEmpty(windowStart, previous, counted, now);
		return Outcome.allowed(this.limit - estimate - cost, reset, nextAfter(previous, counted, elapsed),
				new State(windowStart, previous, counted), reset);
	}

	/**
	 * Returns the time until the estimate of these counts is one lower than now, {@code elapsed} into the current
	 * window: 0 when it is 0.
	 */
	private long nextAfter(long previous, long current, long elapsed) {
		long weight = weighted(previous, this.periodMicros - Math.max(0, elapsed));
		if (weight > 0) {
			return firstFit(previous, weight - 1) - elapsed;
		}
		return (current > 0) ? this.periodMicros - elapsed + firstFit(current, current - 1) : 0;
	}

	/** Returns {@code floor(count * remainingOverlap / period)} computed in doubles, as Lua does. */
	private long weighted(long count, long overlap) {
		return (long) Math.floor((double) count * (double) overlap / (double) this.periodMicros);
	}

	/**
	 * Returns the smallest elapsed time in a window at which a previous window of {@code count} weighs at most
	 * {@code room}: the first {@code e} with {@code count * (period - e) / period < room + 1}, then moved to where
	 * {@link #weighted} itself first fits (products beyond 2^53 round, and retryAfter must be exactly the first
	 * microsecond at which the request fits).
	 */
	private long firstFit(long count, long room) {
		if (count <= room) {
			return 0;
		}
		double boundary = (double) this.periodMicros - (double) (room + 1) * (double) this.periodMicros / (double) count;
		long elapsed = Math.min(this.periodMicros, (long) Math.floor(boundary) + 1);
		while (elapsed > 0 && weighted(count, this.periodMicros - elapsed + 1) <= room) {
			elapsed--;
		}
		while (weighted(count, this.periodMicros - elapsed) > room) {
			elapsed++;
		}
		return elapsed;
	}

	private long untilEmpty(long windowStart, long previous, long current, long now) {
		if (current > 0) {
			return windowStart + 2 * this.periodMicros - now;
		}
		return (previous > 0) ? windowStart + this.periodMicros - now : 0;
	}

	/**
	 * Takes the units off the window they were counted in: the current window of the state, or its previous one when
	 * the state has moved on by one window since.
	 */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long admittedWindow = Math.floorDiv(admittedAt, this.periodMicros) * this.periodMicros;
		if (state.windowStart() == admittedWindow) {
			return new State(state.windowStart(), state.previous(), Math.max(0, state.current() - cost));
		}
		if (state.windowStart() == admittedWindow + this.periodMicros) {
			return new State(state.windowStart(), Math.max(0, state.previous() - cost), state.current());
		}
		return state;
	}

	@Override
	public long windowOf(long now) {
		return Math.floorDiv(now, this.periodMicros) * this.periodMicros;
	}

	/**
	 * Adds the units to their window: the state's current one, or its previous one, or a new current window after the
	 * state's (whose current count becomes the previous one if adjacent); units of a window that weighs nothing any
	 * more (before the previous one of now) are dropped.
	 */
	@Override
	public @Nullable State absorb(@Nullable State state, long now, long units, long window) {
		if (units == 0 || window < windowOf(now) - this.periodMicros) {
			return state;
		}
		if (state == null) {
			return new State(window, 0, units);
		}
		if (state.windowStart() == window) {
			return new State(window, state.previous(), state.current() + units);
		}
		if (state.windowStart() == window + this.periodMicros) {
			return new State(state.windowStart(), state.previous() + units, state.current());
		}
		if (state.windowStart() < window) {
			long previous = (state.windowStart() == window - this.periodMicros) ? state.current() : 0;
			return new State(window, previous, units);
		}
		return state;
	}

}
