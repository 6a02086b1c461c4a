package dev.ratelimit;

import dev.ratelimit.store.RateLimitStore;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;

/**
 * What one check of an admitted request consumed: {@code cost} units of a subject's quota under a rate policy, counted
 * by the store at {@code at} (on the store's clock). Returned by {@link Verdict#consumptions()} and handed to
 * {@link RateLimiter#refund} to give the units back, e.g. when a rule counts only some outcomes ({@code count-when}),
 * or in a {@link Settlement} to {@link RateLimiter#settle} a request whose cost is known only after it ran.
 * <p>
 * A consumption is a receipt, not a resource: refunding one gives back at most what it consumed (see
 * {@link RateLimitStore#refund} for what that means per algorithm), and a receipt that is never refunded changes
 * nothing. Concurrency checks hold leases instead, which are released, not refunded; distinct checks count values,
 * which are not refunded.
 *
 * @param policy the rate policy (not {@link Algorithm#CONCURRENCY concurrency} nor {@link Algorithm#DISTINCT distinct})
 * @param subject the subject
 * @param cost the units consumed, at least 1
 * @param at when the store counted them, on its own clock
 */
public record Consumption(RateLimitPolicy policy, String subject, long cost, Instant at) {

	public Consumption {
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(subject, "subject");
		Objects.requireNonNull(at, "at");
		if (policy.algorithm() == Algorithm.CONCURRENCY) {
			throw new IllegalArgumentException("A concurrency policy holds leases, which are released, not refunded");
		}
		if (policy.algorithm() == Algorithm.DISTINCT) {
			throw new IllegalArgumentException("A distinct policy counts values, which are not refunded");
		}
		if (cost < 1 || cost > RateLimitCheck.MAX_COST) {
			throw new IllegalArgumentException("cost must be between 1 and " + RateLimitCheck.MAX_COST);
		}
	}

	/** Returns the check that gives these units back: this policy and subject at this cost. */
	public RateLimitCheck check() {
		return new RateLimitCheck(this.policy, this.subject, this.cost, false);
	}

	/** Returns {@link #at} in microseconds since the epoch. */
	public long atMicros() {
		return ChronoUnit.MICROS.between(Instant.EPOCH, this.at);
	}

}
