package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import java.time.Duration;
import java.util.Objects;

import dev.ratelimit.algorithm.Distinct;
import org.jspecify.annotations.Nullable;

/**
 * One check of a request: a policy applied to a subject (the client key as resolved, e.g. an IP address) at a cost.
 * <p>
 * A cost of {@code 0} inspects the state without consuming anything. A {@code shadow} check is evaluated and
 * reported but never denies the request (and never makes another check's decision fail).
 * <p>
 * A {@link Algorithm#DISTINCT distinct} check carries the value the request presents, as its
 * {@link Distinct#token token} (a hash: client input never reaches a store as it was sent); with a cost above 0 it
 * presents that value once, whatever the cost. Other checks carry none.
 * <p>
 * A check with a {@code maxWait} may <em>reserve</em>: when its policy would deny the request but could admit it
 * within {@code maxWait}, the request is admitted for a later time, its slot taken at once (see
 * {@link Decision#delay()}). Only {@link Algorithm#supportsReservations() some algorithms} reserve.
 *
 * @param policy the policy
 * @param subject the subject; any string (long or unsafe subjects are hashed before they reach a store key)
 * @param cost units to consume, {@code 0} to inspect only
 * @param shadow whether the check only observes
 * @param status how a denial by this check is answered (its rule's {@code status})
 * @param distinctValue the token of the value a distinct check presents (required when its cost is above 0), else
 * {@code null}
 * @param maxWait the longest wait this check accepts for a reserved slot; {@link Duration#ZERO} to be denied at once
 */
public record RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow, DenialStatus status,
		@Nullable String distinctValue, Duration maxWait) {

	/** Upper bound of a cost. */
	public static final long MAX_COST = Integer.MAX_VALUE;

	public RateLimitCheck {
		Objects.requireNonNull(policy, "policy");
		Objects.requireNonNull(subject, "subject");
		Objects.requireNonNull(status, "status");
		if (cost < 0 || cost > MAX_COST) {
			throw new IllegalArgumentException("cost must be between 0 and " + MAX_COST + " but was " + cost);
		}
		boolean distinct = policy.algorithm() == Algorithm.DISTINCT;
		if (distinctValue != null && (!distinct || !Distinct.isToken(distinctValue))) {
			throw new IllegalArgumentException(distinct ? "a distinct value must be a token (Distinct.token)"
					: "only a distinct check carries a value");
		}
		if (distinct && distinctValue == null && cost > 0) {
			throw new IllegalArgumentException("a distinct check of cost " + cost + " needs the value it presents");
		}
		Objects.requireNonNull(maxWait, "maxWait");
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative but was " + maxWait);
		}
		if (!maxWait.isZero() && !policy.algorithm().supportsReservations()) {
			throw new IllegalArgumentException("Policy '" + policy.name() + "' (" + policy.algorithm().configName()
					+ ") cannot reserve a slot; only gcra, token-bucket and leaky-bucket can wait");
		}
	}

	/** Creates a check that carries no distinct value, whose denial is {@link DenialStatus#TOO_MANY_REQUESTS}. */
	public RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow) {
		this(policy, subject, cost, shadow, DenialStatus.TOO_MANY_REQUESTS, null, Duration.ZERO);
	}

	/** Creates a check that carries no distinct value, whose denial is {@link DenialStatus#TOO_MANY_REQUESTS}. */
	public RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow, Duration maxWait) {
		this(policy, subject, cost, shadow, DenialStatus.TOO_MANY_REQUESTS, null, maxWait);
	}

	/** Creates a check that is denied at once when its policy denies. */
	public RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow, DenialStatus status,
			@Nullable String distinctValue) {
		this(policy, subject, cost, shadow, status, distinctValue, Duration.ZERO);
	}

	/** Creates a check that carries no distinct value. */
	public RateLimitCheck(RateLimitPolicy policy, String subject, long cost, boolean shadow, DenialStatus status) {
		this(policy, subject, cost, shadow, status, null, Duration.ZERO);
	}

	/**
	 * Creates a check of a distinct policy that presents a value.
	 * @param policy the distinct policy
	 * @param subject the subject
	 * @param value the value as resolved from the request (it is hashed here)
	 * @param shadow whether the check only observes
	 * @return the check
	 */
	public static RateLimitCheck distinct(RateLimitPolicy policy, String subject, String value, boolean shadow) {
		return distinct(policy, subject, value, shadow, DenialStatus.TOO_MANY_REQUESTS);
	}

	/**
	 * Creates a check of a distinct policy that presents a value.
	 * @param policy the distinct policy
	 * @param subject the subject
	 * @param value the value as resolved from the request (it is hashed here)
	 * @param shadow whether the check only observes
	 * @param status how a denial by this check is answered
	 * @return the check
	 */
	public static RateLimitCheck distinct(RateLimitPolicy policy, String subject, String value, boolean shadow,
			DenialStatus status) {
		return new RateLimitCheck(policy, subject, 1, shadow, status, Distinct.token(value));
	}

	/** Returns a copy of another cost (e.g. 0 to inspect), with the same policy, subject, mode, status and value. */
	public RateLimitCheck withCost(long cost) {
		return new RateLimitCheck(this.policy, this.subject, cost, this.shadow, this.status, this.distinctValue,
				this.maxWait);
	}

	/** Creates an enforced check of cost 1. */
	public static RateLimitCheck of(RateLimitPolicy policy, String subject) {
		return new RateLimitCheck(policy, subject, 1, false);
	}

	/** Creates an enforced check of the given cost. */
	public static RateLimitCheck of(RateLimitPolicy policy, String subject, long cost) {
		return new RateLimitCheck(policy, subject, cost, false);
	}

	/**
	 * Returns whether this check acquires a {@link Lease} when the request is admitted: a concurrency check of cost
	 * &gt; 0.
	 */
	public boolean acquiresLease() {
		return this.policy.algorithm() == Algorithm.CONCURRENCY && this.cost > 0;
	}

	/**
	 * Returns a copy that accepts waiting up to {@code maxWait} for a reserved slot.
	 * @param maxWait the longest wait; zero to be denied at once
	 * @return the check
	 */
	public RateLimitCheck withMaxWait(Duration maxWait) {
		return new RateLimitCheck(this.policy, this.subject, this.cost, this.shadow, this.status, this.distinctValue,
				maxWait);
	}

	/** Returns {@link #maxWait()} in whole microseconds, the unit of the stores. */
	public long maxWaitMicros() {
		return this.maxWait.isZero() ? 0 : this.maxWait.toNanos() / 1_000;
	}

	/** Returns whether this check can deny the request. */
	public boolean enforced() {
		return !this.shadow;
	}

}
