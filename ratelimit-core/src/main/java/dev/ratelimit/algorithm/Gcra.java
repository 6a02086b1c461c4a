package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * Generic cell rate algorithm. The state is one timestamp, the theoretical arrival time (TAT) of the next unit.
 * Each unit moves it {@code interval} later; a request is admitted when the new TAT is at most
 * {@code tolerance = capacity * interval} ahead of now.
 * <ul>
 * <li>remaining = {@code floor((tolerance - (tat - now)) / interval)}</li>
 * <li>resetAfter = {@code tat - now} (the TAT is where the bucket is empty again)</li>
 * <li>retryAfter = {@code newTat - now - tolerance}</li>
 * <li>nextAfter = time until remaining is one more than now (at least one): until
 * {@code tat - now = tolerance - (remaining + 1) * interval}</li>
 * </ul>
 *
 * @param intervalMicros the emission interval, {@code period / limit}
 * @param capacity the burst: units admissible at once
 */
public record Gcra(long intervalMicros, long capacity) implements Reservable<Gcra.State>, Syncable<Gcra.State> {

	/** @param tat the theoretical arrival time in microseconds */
	public record State(long tat) {
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long tolerance = this.capacity * this.intervalMicros;
		long tat = (state != null) ? Math.max(state.tat(), now) : now;
		long remainingNow = Math.floorDiv(tolerance - (tat - now), this.intervalMicros);
		if (cost > this.capacity) {
			return Outcome.never(remainingNow, tat - now, nextAfter(tat - now), state);
		}
		long newTat = tat + cost * this.intervalMicros;
		long ahead = newTat - now;
		if (ahead > tolerance) {
			return Outcome.denied(remainingNow, tat - now, nextAfter(tat - now), ahead - tolerance, state);
		}
		return Outcome.allowed(Math.floorDiv(tolerance - ahead, this.intervalMicros), ahead, nextAfter(ahead),
				new State(newTat), ahead);
	}

	/** Returns the time until a TAT {@code ahead} of now leaves room for one more unit than now (at least one). */
	private long nextAfter(long ahead) {
		if (ahead <= 0) {
			return 0;
		}
		long tolerance = this.capacity * this.intervalMicros;
		long remaining = Math.max(0, Math.floorDiv(tolerance - ahead, this.intervalMicros));
		return ahead - tolerance + (remaining + 1) * this.intervalMicros;
	}

	/**
	 * Moves {@code tat} back by {@code cost} intervals, but not before now: no state when that reaches now.
	 */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long tat = state.tat() - cost * this.intervalMicros;
		return (tat > now) ? new State(tat) : null;
	}

	/** Moves the TAT (from now at the earliest) forward by {@code units} intervals, past the tolerance if it must. */
	@Override
	public @Nullable State absorb(@Nullable State state, long now, long units, long window) {
		if (units == 0) {
			return state;
		}
		long tat = (state != null) ? Math.max(state.tat(), now) : now;
		return new State(tat + units * this.intervalMicros);
	}

	@Override
	public @Nullable State giveBack(State state, long now, long cost) {
		long at = state.tat() - cost * this.intervalMicros;
		return (at > now) ? new State(at) : null;
	}

}
