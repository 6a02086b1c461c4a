package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * One algorithm configured for one policy: a pure function of (state, now, cost).
 *
 * @param <S> the immutable state kept per key
 */
public interface LimitAlgorithm<S> {

	/**
	 * Applies a request.
	 * @param state the current state, or {@code null} when the key has none (never seen, or expired)
	 * @param nowMicros the current time in microseconds
	 * @param cost units requested; 0 inspects without consuming
	 * @return the outcome; when denied, its state is the input state
	 */
	Outcome<S> apply(@Nullable S state, long nowMicros, long cost);

	/**
	 * Gives back {@code cost} units that a request admitted at {@code admittedAtMicros} consumed, as far as they
	 * still count: the bucket algorithms move their time back by {@code cost} intervals (never before now, so a
	 * bucket is never fuller than its capacity of tokens), the windows take the units off the window they were
	 * counted in if the state still holds it, and the log removes the request's entries.
	 * @param state the current state, or {@code null} when the key has none
	 * @param nowMicros the current time in microseconds
	 * @param admittedAtMicros when the store admitted the request, in microseconds
	 * @param cost units to give back
	 * @return the state after the refund, {@code null} when it equals no state
	 * @throws UnsupportedOperationException for an algorithm whose units are released, not refunded (concurrency)
	 */
	default @Nullable S refund(@Nullable S state, long nowMicros, long admittedAtMicros, long cost) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " does not refund");
	}

	/**
	 * Charges {@code units} more to a request admitted at {@code admittedAtMicros} whose cost turned out higher than it
	 * reserved: consumed without a limit check, so the state may go beyond its limit (debt), which later decisions
	 * then pay back. The buckets move their time {@code units} intervals later (from now at the earliest); the windows
	 * add the units to the window the request was admitted in if that window still counts (a later window owes
	 * nothing).
	 * @param state the current state, or {@code null} when the key has none
	 * @param nowMicros the current time in microseconds
	 * @param admittedAtMicros when the store admitted the request, in microseconds
	 * @param units the units to charge, at least 1
	 * @return the state after the charge, {@code null} when it equals no state
	 * @throws UnsupportedOperationException for an algorithm that is not charged (sliding window log, concurrency,
	 * distinct)
	 */
	default @Nullable S charge(@Nullable S state, long nowMicros, long admittedAtMicros, long units) {
		throw new UnsupportedOperationException(getClass().getSimpleName() + " is not charged after the response");
	}

}
