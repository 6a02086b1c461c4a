package dev.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * The answer of one check.
 *
 * @param allowed whether the check admits the request on its own
 * @param limit the policy's limit per period
 * @param remaining units still available (after this request's consumption if it was admitted), never negative
 * @param resetAfter time until the subject's quota is fully restored
 * @param retryAfter time until a request of the same cost could be admitted: {@link Duration#ZERO} exactly when
 * allowed, {@link #NEVER} when the cost exceeds what the policy can ever admit
 */
public record Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter) {

	/** The {@link #retryAfter()} of a cost the policy can never admit. */
	public static final Duration NEVER = ChronoUnit.FOREVER.getDuration();

	public Decision {
		if (remaining < 0) {
			throw new IllegalArgumentException("remaining must not be negative");
		}
		if (allowed != retryAfter.isZero()) {
			throw new IllegalArgumentException("retryAfter must be zero exactly when allowed");
		}
	}

	/**
	 * Creates a decision from the microsecond values of the reference maths and the Lua script
	 * ({@code retryAfterMicros = -1} meaning never).
	 */
	public static Decision ofMicros(boolean allowed, long limit, long remaining, long resetAfterMicros,
			long retryAfterMicros) {
		Duration retryAfter = (retryAfterMicros < 0) ? NEVER : Duration.of(retryAfterMicros, ChronoUnit.MICROS);
		return new Decision(allowed, limit, remaining, Duration.of(resetAfterMicros, ChronoUnit.MICROS), retryAfter);
	}

	/** Returns whether the cost of the request exceeds what the policy can ever admit. */
	public boolean neverAllowed() {
		return NEVER.equals(this.retryAfter);
	}

}
