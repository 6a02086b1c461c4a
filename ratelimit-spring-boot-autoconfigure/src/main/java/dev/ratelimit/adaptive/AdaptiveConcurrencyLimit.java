package dev.ratelimit.adaptive;

import dev.ratelimit.adaptive.ConcurrencyLimiter.Permit;
import org.jspecify.annotations.Nullable;

/**
 * One adaptive rule in effect: the rule and its limiter, whose limit and places taken the metrics and the
 * {@code ratelimits} endpoint show.
 */
public final class AdaptiveConcurrencyLimit {

	private final AdaptiveConcurrencyRule rule;

	private final ConcurrencyLimiter limiter;

	/**
	 * @param rule the rule
	 * @param limiter its limiter
	 */
	public AdaptiveConcurrencyLimit(AdaptiveConcurrencyRule rule, ConcurrencyLimiter limiter) {
		this.rule = rule;
		this.limiter = limiter;
	}

	/** Returns the rule. */
	public AdaptiveConcurrencyRule rule() {
		return this.rule;
	}

	/** Returns the current limit. */
	public int limit() {
		return this.limiter.limit();
	}

	/** Returns the requests in progress under this limit. */
	public int inFlight() {
		return this.limiter.inFlight();
	}

	/**
	 * Takes a place if one is free.
	 * @return the place, or {@code null} when the limit is reached
	 */
	@Nullable Permit tryAcquire() {
		return this.limiter.tryAcquire();
	}

}
