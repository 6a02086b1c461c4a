package dev.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.jspecify.annotations.Nullable;

/**
 * The answer of one check.
 * <p>
 * For a {@link Algorithm#CONCURRENCY concurrency} check, {@code limit} is the cap of units in flight,
 * {@code remaining} the free slots, {@code resetAfter} the time until the earliest held lease expires (zero when none
 * is held), and {@code retryAfter} of a denial a suggested wait, not a promise (slots are freed by releases, which no
 * store can foresee): the time until enough held leases expire to make room, at least 1 ms and at most 1 s. An
 * admitted request's decision carries the {@link #lease() lease} it holds.
 * <p>
 * An admitted request that reserved a later slot (see {@link RateLimitCheck#maxWait()}) has a {@link #delay()}: it may
 * proceed only that long after the decision, and every number of its decisions describes the state at that time.
 *
 * @param allowed whether the check admits the request on its own
 * @param limit the policy's limit per period
 * @param remaining units still available (after this request's consumption if it was admitted), never negative
 * @param resetAfter time until the subject's quota is fully restored
 * @param retryAfter time until a request of the same cost could be admitted: {@link Duration#ZERO} exactly when
 * allowed, {@link #NEVER} when the cost exceeds what the policy can ever admit
 * @param lease the lease that an admitted request holds under a concurrency check, to release when it ends; else
 * {@code null}
 * @param reclaimed expired lease slots (of crashed instances, or of requests that outlived the lease timeout) that
 * this check's admission removed, or that a peek's admission would remove; 0 for the other algorithms
 * @param delay for an admitted request that reserved a later slot, the time from the decision until it may proceed
 * (the same in every admitting decision of the request); else {@link Duration#ZERO}
 */
public record Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
		@Nullable Lease lease, long reclaimed, Duration delay) {

	/** The {@link #retryAfter()} of a cost the policy can never admit. */
	public static final Duration NEVER = ChronoUnit.FOREVER.getDuration();

	public Decision {
		if (remaining < 0) {
			throw new IllegalArgumentException("remaining must not be negative");
		}
		if (allowed != retryAfter.isZero()) {
			throw new IllegalArgumentException("retryAfter must be zero exactly when allowed");
		}
		if (lease != null && !allowed) {
			throw new IllegalArgumentException("only an allowing check holds a lease");
		}
		if (reclaimed < 0) {
			throw new IllegalArgumentException("reclaimed must not be negative");
		}
		if (delay.isNegative() || (!allowed && !delay.isZero())) {
			throw new IllegalArgumentException("delay must be zero or, for an allowing check, positive");
		}
	}

	/** Creates a decision that holds a lease (or none) and needs no wait. */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
			@Nullable Lease lease, long reclaimed) {
		this(allowed, limit, remaining, resetAfter, retryAfter, lease, reclaimed, Duration.ZERO);
	}

	/** Creates a decision that holds no lease. */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter) {
		this(allowed, limit, remaining, resetAfter, retryAfter, null, 0);
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

	/**
	 * Returns a copy with the given lease and count of reclaimed slots.
	 * @param lease the lease held, or {@code null}
	 * @param reclaimed the expired slots reclaimed
	 * @return the decision
	 */
	public Decision withLease(@Nullable Lease lease, long reclaimed) {
		return new Decision(this.allowed, this.limit, this.remaining, this.resetAfter, this.retryAfter, lease,
				reclaimed, this.delay);
	}

	/**
	 * Returns a copy with the given delay until the reserved slot.
	 * @param delay the delay, zero for none
	 * @return the decision
	 */
	public Decision withDelay(Duration delay) {
		return new Decision(this.allowed, this.limit, this.remaining, this.resetAfter, this.retryAfter, this.lease,
				this.reclaimed, delay);
	}

	/** Returns whether the cost of the request exceeds what the policy can ever admit. */
	public boolean neverAllowed() {
		return NEVER.equals(this.retryAfter);
	}

}
