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

}
