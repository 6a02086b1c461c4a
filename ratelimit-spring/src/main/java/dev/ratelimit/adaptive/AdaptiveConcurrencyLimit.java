package dev.ratelimit.adaptive;

import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.adaptive.ConcurrencyLimiter.Permit;
import dev.ratelimit.rule.RuleMode;
import org.jspecify.annotations.Nullable;

/**
 * One adaptive rule in effect: the rule and its limiter, whose limit and places taken the metrics and the
 * {@code ratelimits} endpoint show.
 */
public final class AdaptiveConcurrencyLimit {

	private final AdaptiveConcurrencyRule rule;

	private final ConcurrencyLimiter limiter;

	private final LongAdder allowed = new LongAdder();

	private final LongAdder denied = new LongAdder();

	private final LongAdder shadowDenied = new LongAdder();

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
		Permit permit = this.limiter.tryAcquire();
		if (permit != null) {
			this.allowed.increment();
		}
		else {
			((this.rule.mode() == RuleMode.SHADOW) ? this.shadowDenied : this.denied).increment();
		}
		return permit;
	}

	/** Returns how many requests took a place so far. */
	public long allowed() {
		return this.allowed.sum();
	}

	/** Returns how many requests this limit denied so far (with 503, or the rule's {@code status}). */
	public long denied() {
		return this.denied.sum();
	}

	/** Returns how many requests this limit, a shadow rule's, would have denied so far. */
	public long shadowDenied() {
		return this.shadowDenied.sum();
	}

}
