package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import java.time.Duration;
import java.time.Instant;
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
 * @param nextAfter time until at least one unit more than {@code remaining} is available (what the IETF draft calls
 * {@code t}, "until additional quota is made available"): {@link Duration#ZERO} when nothing is used, and for a
 * concurrency check (its slots come back when requests end, at no time known in advance); never after
 * {@code retryAfter} of a denial
 * @param resetAt the instant, on the store's clock, at which the quota is fully restored (the store's time of the
 * decision plus {@code resetAfter}), so that every answer about the same state names the same instant; {@code null}
 * when no store decided (e.g. a fallback while the store is unavailable)
 * @param decidedAt when the store decided, on the store's own clock (Redis {@code TIME} for the Redis store): what a
 * {@link Consumption refund} needs to find the window the units were counted in; {@code null} for a decision that no
 * store made (a rule failing open while the store is unavailable, or a denial remembered by the deny cache)
 * @param delay for an admitted request that reserved a later slot, the time from the decision until it may proceed
 * (the same in every admitting decision of the request); else {@link Duration#ZERO}
 */
public record Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
		@Nullable Lease lease, long reclaimed, Duration nextAfter, @Nullable Instant resetAt,
		@Nullable Instant decidedAt, Duration delay) {

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
		if (nextAfter.isNegative() || (!allowed && nextAfter.compareTo(retryAfter) > 0)) {
			throw new IllegalArgumentException("nextAfter must be between zero and the retryAfter of a denial");
		}
		if (delay.isNegative() || (!allowed && !delay.isZero())) {
			throw new IllegalArgumentException("delay must be zero or, for an allowing check, positive");
		}
	}

	/** Creates a decision that needs no wait. */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
			@Nullable Lease lease, long reclaimed, Duration nextAfter, @Nullable Instant resetAt,
			@Nullable Instant decidedAt) {
		this(allowed, limit, remaining, resetAfter, retryAfter, lease, reclaimed, nextAfter, resetAt, decidedAt,
				Duration.ZERO);
	}

	/**
	 * Creates a decision with a next-unit time and reset instant that no store made (no {@code decidedAt}).
	 */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
			@Nullable Lease lease, long reclaimed, Duration nextAfter, @Nullable Instant resetAt) {
		this(allowed, limit, remaining, resetAfter, retryAfter, lease, reclaimed, nextAfter, resetAt, null);
	}

	/**
	 * Creates a decision that no store made, whose time until more quota is not known: taken as {@code resetAfter},
	 * or {@code retryAfter} when that is sooner, and whose reset instant is not known.
	 */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter,
			@Nullable Lease lease, long reclaimed) {
		this(allowed, limit, remaining, resetAfter, retryAfter, lease, reclaimed,
				allowed ? resetAfter : min(resetAfter, retryAfter), null, null);
	}

	/** Creates a decision that holds no lease and that no store made, with the defaults of the constructor above. */
	public Decision(boolean allowed, long limit, long remaining, Duration resetAfter, Duration retryAfter) {
		this(allowed, limit, remaining, resetAfter, retryAfter, null, 0);
	}

	private static Duration min(Duration a, Duration b) {
		return (a.compareTo(b) <= 0) ? a : b;
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
	 * Creates a decision from the microsecond values of the reference maths and the Lua script, decided at
	 * {@code nowMicros} (epoch microseconds) on the store's clock.
	 */
	public static Decision ofMicros(boolean allowed, long limit, long remaining, long resetAfterMicros,
			long retryAfterMicros, long nextAfterMicros, long nowMicros) {
		Duration retryAfter = (retryAfterMicros < 0) ? NEVER : Duration.of(retryAfterMicros, ChronoUnit.MICROS);
		Instant decidedAt = Instant.EPOCH.plus(nowMicros, ChronoUnit.MICROS);
		Instant resetAt = decidedAt.plus(resetAfterMicros, ChronoUnit.MICROS);
		return new Decision(allowed, limit, remaining, Duration.of(resetAfterMicros, ChronoUnit.MICROS), retryAfter,
				null, 0, Duration.of(nextAfterMicros, ChronoUnit.MICROS), resetAt, decidedAt);
	}

	/**
	 * Creates a decision that a store made at {@code decidedAtMicros} (microseconds since the epoch on its clock), from
	 * the microsecond values of the reference maths and the Lua script ({@code retryAfterMicros = -1} meaning never),
	 * whose time until more quota is not known (taken as in the 7-argument constructor).
	 */
	public static Decision ofMicros(boolean allowed, long limit, long remaining, long resetAfterMicros,
			long retryAfterMicros, long decidedAtMicros) {
		Decision d = ofMicros(allowed, limit, remaining, resetAfterMicros, retryAfterMicros);
		Instant decidedAt = Instant.EPOCH.plus(decidedAtMicros, ChronoUnit.MICROS);
		return new Decision(d.allowed, d.limit, d.remaining, d.resetAfter, d.retryAfter, null, 0, d.nextAfter,
				decidedAt.plus(d.resetAfter), decidedAt);
	}

	/**
	 * Returns a copy with the given lease and count of reclaimed slots.
	 * @param lease the lease held, or {@code null}
	 * @param reclaimed the expired slots reclaimed
	 * @return the decision
	 */
	public Decision withLease(@Nullable Lease lease, long reclaimed) {
		return new Decision(this.allowed, this.limit, this.remaining, this.resetAfter, this.retryAfter, lease,
				reclaimed, this.nextAfter, this.resetAt, this.decidedAt, this.delay);
	}

	/**
	 * Returns a copy with the given delay until the reserved slot.
	 * @param delay the delay, zero for none
	 * @return the decision
	 */
	public Decision withDelay(Duration delay) {
		return new Decision(this.allowed, this.limit, this.remaining, this.resetAfter, this.retryAfter, this.lease,
				this.reclaimed, this.nextAfter, this.resetAt, this.decidedAt, delay);
	}

	/** Returns whether the cost of the request exceeds what the policy can ever admit. */
	public boolean neverAllowed() {
		return NEVER.equals(this.retryAfter);
	}

}
