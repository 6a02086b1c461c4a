package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * An algorithm under which a request may reserve a later slot: its state is one time (GCRA's theoretical arrival
 * time, the buckets' full-at and empty-at times) that each admitted unit moves one interval later. A reservation for a
 * request that waits {@code w} is the request {@link #apply applied} at {@code now + w} (where it is admitted when
 * {@code w} is at least the {@code retryAfter} at {@code now}), and giving a reserved or consumed cost back moves the
 * time back by as many intervals.
 *
 * @param <S> the state
 */
public interface Reservable<S> extends LimitAlgorithm<S> {

	/**
	 * Gives back units that an admission took.
	 * @param state the current state
	 * @param nowMicros the current time in microseconds
	 * @param cost the units to give back
	 * @return the state {@code cost} intervals earlier, or {@code null} when that is no later than now (no state)
	 */
	@Nullable S giveBack(S state, long nowMicros, long cost);

}
