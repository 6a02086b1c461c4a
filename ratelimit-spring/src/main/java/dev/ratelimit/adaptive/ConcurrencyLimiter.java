package dev.ratelimit.adaptive;

import dev.ratelimit.Completion.Outcome;
import org.jspecify.annotations.Nullable;

/** A limit on the requests in progress in this instance. */
public interface ConcurrencyLimiter {

	/**
	 * Takes a place if one is free.
	 * @return the place, to release when the request ends, or {@code null} when the limit is reached
	 */
	@Nullable Permit tryAcquire();

	/** Returns the current limit. */
	int limit();

	/** Returns the number of places taken. */
	int inFlight();

	/** A place taken by a request in progress. */
	@FunctionalInterface
	interface Permit {

		/**
		 * Gives the place back; only the first call counts.
		 * @param outcome how the request ended: a completed request's latency is a sample of the limit's algorithm, a
		 * timeout a drop, anything else is not measured
		 */
		void release(Outcome outcome);

	}

}
