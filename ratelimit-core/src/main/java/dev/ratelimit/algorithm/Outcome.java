package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * The result of applying one algorithm to one state.
 *
 * @param <S> the state type
 * @param allowed whether the cost is admitted
 * @param remaining units still available: after consumption when allowed, else now (never negative)
 * @param resetAfterMicros time until the quota is fully restored
 * @param nextAfterMicros time until at least one more unit is available than {@code remaining} (the IETF draft's
 * {@code t}): 0 when nothing is used (the quota is full), and for concurrency, whose slots come back when requests end
 * rather than at a time; never more than {@code retryAfterMicros} of a denial
 * @param retryAfterMicros 0 when allowed; else the wait until the cost could be admitted, or {@link #NEVER}
 * @param state the state to keep when the outcome is committed (for a denial: the unchanged input state)
 * @param ttlMicros how long the committed state must be kept; 0 means it equals "no state" and may be deleted
 * @param limit the limit in force for this key now, when it is not the policy's (a key warming up), else 0
 */
public record Outcome<S>(boolean allowed, long remaining, long resetAfterMicros, long nextAfterMicros,
		long retryAfterMicros, @Nullable S state, long ttlMicros, long limit) {

	/** Creates an outcome under the policy's limit. */
	public Outcome(boolean allowed, long remaining, long resetAfterMicros, long nextAfterMicros, long retryAfterMicros,
			@Nullable S state, long ttlMicros) {
		this(allowed, remaining, resetAfterMicros, nextAfterMicros, retryAfterMicros, state, ttlMicros, 0);
	}

	/** Returns the limit in force: this outcome's when it has one, else the policy's. */
	public long limitOr(long policyLimit) {
		return (this.limit > 0) ? this.limit : policyLimit;
	}

	/** The {@link #retryAfterMicros()} of a cost that the policy can never admit. */
	public static final long NEVER = -1;

	static <S> Outcome<S> allowed(long remaining, long resetAfterMicros, long nextAfterMicros, @Nullable S state,
			long ttlMicros) {
		return new Outcome<>(true, Math.max(0, remaining), resetAfterMicros, nextAfterMicros, 0, state, ttlMicros);
	}

	static <S> Outcome<S> denied(long remaining, long resetAfterMicros, long nextAfterMicros, long retryAfterMicros,
			@Nullable S state) {
		long retry = Math.max(1, retryAfterMicros);
		return new Outcome<>(false, Math.max(0, remaining), resetAfterMicros, Math.min(nextAfterMicros, retry), retry,
				state, 0);
	}

	static <S> Outcome<S> never(long remaining, long resetAfterMicros, long nextAfterMicros, @Nullable S state) {
		return new Outcome<>(false, Math.max(0, remaining), resetAfterMicros, nextAfterMicros, NEVER, state, 0);
	}

}
