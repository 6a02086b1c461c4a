package dev.ratelimit.algorithm;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

/**
 * Sliding window log: remembers the time of every admitted unit; a unit counts while it is younger than
 * {@code period} (an entry at {@code t} is forgotten at {@code now >= t + period}). Exact; memory grows with the
 * limit. Two units admitted in the same microsecond are two entries.
 * <ul>
 * <li>remaining = {@code limit - count}</li>
 * <li>retryAfter = time until the {@code (count + cost - limit)}-th oldest entry is forgotten</li>
 * <li>resetAfter = time until the newest entry is forgotten</li>
 * <li>nextAfter = time until the oldest entry is forgotten</li>
 * </ul>
 *
 * @param periodMicros the window length
 * @param limit units per window
 */
public record SlidingWindowLog(long periodMicros, long limit) implements LimitAlgorithm<SlidingWindowLog.State> {

	/** @param times the times of the remembered units, ascending, in microseconds */
	public record State(long[] times) {

		@Override
		public boolean equals(Object other) {
			return other instanceof State that && Arrays.equals(this.times, that.times);
		}

		@Override
		public int hashCode() {
			return Arrays.hashCode(this.times);
		}

		@Override
		public String toString() {
			return "State" + Arrays.toString(this.times);
		}

	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long[] all = (state != null) ? state.times() : new long[0];
		int firstLive = 0;
		while (firstLive < all.length && all[firstLive] <= now - this.periodMicros) {
			firstLive++;
		}
		long[] live = Arrays.copyOfRange(all, firstLive, all.length);
		int count = live.length;
		long untilEmpty = (count > 0) ? live[count - 1] + this.periodMicros - now : 0;
		long untilNext = (count > 0) ? live[0] + this.periodMicros - now : 0;
		if (cost > this.limit) {
			return Outcome.never(this.limit - count, untilEmpty, untilNext, state);
		}
		if (count + cost > this.limit) {
			long blocking = live[(int) (count + cost - this.limit) - 1];
			return Outcome.denied(this.limit - count, untilEmpty, untilNext, blocking + this.periodMicros - now, state);
		}
		if (cost == 0) {
			return Outcome.allowed(this.limit - count, untilEmpty, untilNext, new State(live), untilEmpty);
		}
		long[] next = Arrays.copyOf(live, count + (int) cost);
		Arrays.fill(next, count, next.length, now);
		Arrays.sort(next);
		long reset = next[next.length - 1] + this.periodMicros - now;
		return Outcome.allowed(this.limit - next.length, reset, next[0] + this.periodMicros - now, new State(next),
				reset);
	}

	/** Removes up to {@code cost} entries of the time the request was admitted (its own, or equal ones). */
	@Override
	public @Nullable State refund(@Nullable State state, long now, long admittedAt, long cost) {
		if (state == null) {
			return null;
		}
		long[] times = state.times();
		long[] kept = new long[times.length];
		int n = 0;
		long removed = 0;
		for (long time : times) {
			if (time == admittedAt && removed < cost) {
				removed++;
			}
			else {
				kept[n++] = time;
			}
		}
		return (removed == 0) ? state : new State(Arrays.copyOf(kept, n));
	}

}
