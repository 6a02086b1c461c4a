package dev.ratelimit;

import dev.ratelimit.store.RateLimitStore;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * The settlement of a request whose cost is known only after it ran (the tokens a language model reports, the rows a
 * query scanned): the request reserved {@code consumption.cost()} units, its estimate, when it was admitted, and
 * settling makes the quota count {@code actualCost} instead.
 * <ul>
 * <li>{@code actualCost > cost}: the difference is charged, <strong>unconditionally</strong>: the work is done, so
 * the quota may go below zero. Such a quota is in <em>debt</em>: the next requests are denied until it has recovered
 * (see {@link RateLimitStore#settle} for what that means per algorithm);</li>
 * <li>{@code actualCost < cost}: the difference is given back, exactly as {@link RateLimitStore#refund} gives back a
 * consumption of that many units counted at {@code consumption.at()};</li>
 * <li>{@code actualCost == cost}: nothing changes.</li>
 * </ul>
 * Settle each consumption once: a settlement is not idempotent (settling twice charges or refunds twice).
 * A {@link Algorithm#SLIDING_WINDOW_LOG sliding window log} cannot be charged (its log keeps one entry per unit, so a
 * debt would grow it without bound): such a settlement is refused when constructed, see {@link #supports}.
 *
 * @param consumption what the admitted check reserved: its policy, subject, estimated cost and admission time
 * @param actualCost what the request really cost, between 0 and {@link RateLimitCheck#MAX_COST}
 */
public record Settlement(Consumption consumption, long actualCost) {

	public Settlement {
		Objects.requireNonNull(consumption, "consumption");
		if (actualCost < 0 || actualCost > RateLimitCheck.MAX_COST) {
			throw new IllegalArgumentException(
					"actualCost must be between 0 and " + RateLimitCheck.MAX_COST + " but was " + actualCost);
		}
		if (!supports(consumption.policy())) {
			throw new IllegalArgumentException("Policy '" + consumption.policy().name() + "' ("
					+ consumption.policy().algorithm().configName() + ") cannot be settled after the response; "
					+ "use gcra, token-bucket, leaky-bucket, fixed-window (or a calendar) or sliding-window-counter");
		}
	}

	/**
	 * Returns whether requests under a policy can be settled: every rate algorithm but the sliding window log (and
	 * not concurrency nor distinct, whose checks consume no units to settle).
	 * @param policy the policy
	 * @return whether a {@link Settlement} of it can be made
	 */
	public static boolean supports(RateLimitPolicy policy) {
		return switch (policy.algorithm()) {
			case GCRA, TOKEN_BUCKET, LEAKY_BUCKET, FIXED_WINDOW, SLIDING_WINDOW_COUNTER -> true;
			case SLIDING_WINDOW_LOG, CONCURRENCY, DISTINCT -> false;
		};
	}

	/** Returns {@code actualCost - cost}: positive to charge, negative to give back, 0 for nothing. */
	public long difference() {
		return this.actualCost - this.consumption.cost();
	}

	/** Returns the units charged on top of the estimate, 0 when none. */
	public long charged() {
		return Math.max(0, difference());
	}

	/** Returns the units given back from the estimate, 0 when none. */
	public long refunded() {
		return Math.max(0, -difference());
	}

	/**
	 * Returns the refund that gives back the unused part of the estimate (counted at the admission's time), or
	 * {@code null} when nothing is given back.
	 */
	public @Nullable Consumption refund() {
		long units = refunded();
		return (units == 0) ? null : new Consumption(this.consumption.policy(), this.consumption.subject(), units,
				this.consumption.at());
	}

	/** Returns the check of this settlement's policy and subject at cost 0: what inspects its state. */
	public RateLimitCheck inspection() {
		return new RateLimitCheck(this.consumption.policy(), this.consumption.subject(), 0, false);
	}

}
