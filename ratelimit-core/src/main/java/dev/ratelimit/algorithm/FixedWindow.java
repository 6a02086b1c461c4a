package dev.ratelimit.algorithm;

import java.nio.charset.StandardCharsets;

import org.jspecify.annotations.Nullable;

/**
 * Fixed window: counts units per window of {@code period}; windows start at multiples of the period plus
 * {@code offset}. A state from an earlier window counts as empty. A state from a later window (the clock stepped
 * back out of it) stays the current window until that window ends, so a step back never gives a window's units
 * back; a state that is not on this policy's grid of windows (its period changed) counts as empty.
 * <ul>
 * <li>remaining = {@code limit - count}</li>
 * <li>resetAfter = nextAfter = retryAfter when denied = time until the window ends (0 when the window counts
 * nothing): the whole quota comes back at once</li>
 * </ul>
 *
 * @param periodMicros the window length
 * @param limit units per window
 * @param offsetMicros where windows start relative to multiples of the period, in {@code [0, period)}
 */
public record FixedWindow(long periodMicros, long limit, long offsetMicros)
		implements LimitAlgorithm<FixedWindow.State>, Syncable<FixedWindow.State> {

	/**
	 * @param windowStart start of the counted window, in microseconds
	 * @param count units admitted in that window
	 */
	public record State(long windowStart, long count) {
	}

	/**
	 * Returns a stable per-key window offset in {@code [0, period)}: the 64-bit FNV-1a hash of the key's UTF-8 bytes,
	 * modulo the period. Computed in Java only and passed to the script, so both sides use the same value.
	 */
	public static long offsetFor(String key, long periodMicros) {
		long hash = 0xcbf29ce484222325L;
		for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
			hash ^= (b & 0xff);
			hash *= 0x100000001b3L;
		}
		return Math.floorMod(hash, periodMicros);
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long windowStart = Math.floorDiv(now - this.offsetMicros, this.periodMicros) * this.periodMicros
				+ this.offsetMicros;
		long count = 0;
		if (state != null && state.windowStart() >= windowStart
				&& Math.floorMod(state.windowStart() - this.offsetMicros, this.periodMicros) == 0) {
			// the current window, or a later one that the clock stepped back out of: it counts until it ends
			windowStart = state.windowStart();
			count = state.count();
		}
		return decide(state, windowStart, windowStart + this.periodMicros - now, count, this.limit, cost);
	}

	/**
	 * Decides a cost in a window that counts {@code count} and ends in {@code untilEnd}: the fixed window's maths,
	 * whatever set the window's boundaries (a period, or a calendar).
	 */
	static Outcome<State> decide(@Nullable State state, long windowStart, long untilEnd, long count, long limit,
			long cost) {
		if (cost > limit) {
			long reset = (count > 0) ? untilEnd : 0;
			return Outcome.never(limit - count, reset, reset, state);
		}
		if (count + cost > limit) {
			return Outcome.denied(limit - count, untilEnd, untilEnd, untilEnd, state);
		}
		long counted = count + cost;
		long reset = (counted > 0) ? untilEnd : 0;
		return Outcome.allowed(limit - counted, reset, reset, new State(windowStart, counted), untilEnd);
	}

	/** Takes the units off the window they were counted in, if the state still holds that window. */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long admittedWindow = Math.floorDiv(admittedAt - this.offsetMicros, this.periodMicros) * this.periodMicros
				+ this.offsetMicros;
		return (state.windowStart() == admittedWindow)
				? new State(state.windowStart(), Math.max(0, state.count() - cost)) : state;
	}

	@Override
	public long windowOf(long now) {
		return Math.floorDiv(now - this.offsetMicros, this.periodMicros) * this.periodMicros + this.offsetMicros;
	}

	/**
	 * Adds the units to the count of their window if that is the state's window, or starts their window with them if
	 * the state is of an earlier window (or none) and theirs still counts; units of an ended window are dropped.
	 */
	@Override
	public @Nullable State absorb(@Nullable State state, long now, long units, long window) {
		if (units == 0 || window < windowOf(now)) {
			return state;
		}
		if (state != null && state.windowStart() == window) {
			return new State(window, state.count() + units);
		}
		if (state == null || state.windowStart() < window) {
			return new State(window, units);
		}
		return state;
	}

}
