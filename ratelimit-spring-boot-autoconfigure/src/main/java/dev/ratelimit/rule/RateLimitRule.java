package dev.ratelimit.rule;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

import dev.ratelimit.Algorithm;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * A rule compiled from configuration: immutable, no parsing left to do per request.
 *
 * @param name the rule name
 * @param match which requests it applies to
 * @param key whose quota a request uses
 * @param policy the policy for requests without a known tier
 * @param tiers the policy per tier name
 * @param tierKey how to find a request's tier, or {@code null} without tiers
 * @param cost the cost of a request
 * @param mode whether it blocks
 * @param onStoreFailure what to do while the store is unavailable
 * @param phase where the filter applies it: before or after authentication, never {@link RulePhase#AUTO}
 * @param status how its denials are answered, 429 or 503
 * @param distinct the values a {@link dev.ratelimit.Algorithm#DISTINCT distinct} rule counts per subject, else
 * {@code null}
 * @param countWhen which outcomes of an admitted request count ({@code count-when}; the others are refunded when it
 * ends), or {@code null} when every admitted request counts
 * @param waiting how long its requests may wait for a reserved slot, and how many at once
 */
public record RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
		Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
		StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct,
		@Nullable CountWhen countWhen, RuleWaiting waiting) {

	public RateLimitRule {
		tiers = Map.copyOf(tiers);
		Objects.requireNonNull(status, "status");
		if ((distinct != null) != (policy.algorithm() == Algorithm.DISTINCT)) {
			throw new IllegalArgumentException("A rule has distinct values exactly when its algorithm is distinct");
		}
		if (phase == RulePhase.AUTO) {
			throw new IllegalArgumentException("A compiled rule's phase is before or after authentication, not auto");
		}
	}

	/** Creates a rule whose requests never wait. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct,
			@Nullable CountWhen countWhen) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, status, distinct, countWhen,
				RuleWaiting.NONE);
	}

	/** Creates a rule whose denials are answered with {@link DenialStatus#TOO_MANY_REQUESTS}. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, DenialStatus.TOO_MANY_REQUESTS,
				null, null);
	}

	/** Creates a rule that counts no distinct values and whose every admitted request counts. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, status, null, null);
	}

	/** Creates a rule whose denials are answered with {@link DenialStatus#TOO_MANY_REQUESTS}. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, @Nullable KeyResolver distinct) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, DenialStatus.TOO_MANY_REQUESTS,
				distinct, null);
	}

	/** Creates a rule whose every admitted request counts. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, status, distinct, null);
	}

	/** Creates a rule answered with {@link DenialStatus#TOO_MANY_REQUESTS} that counts no distinct values. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, @Nullable CountWhen countWhen) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, DenialStatus.TOO_MANY_REQUESTS,
				null, countWhen);
	}

	/** Creates a rule answered with {@link DenialStatus#TOO_MANY_REQUESTS} whose requests may wait. */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, RuleWaiting waiting) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, DenialStatus.TOO_MANY_REQUESTS,
				null, null, waiting);
	}

	/**
	 * Returns the check of this rule for a subject, with the rule's {@code max-wait} when the policy can reserve.
	 * @param policy the policy (the rule's or a tier's)
	 * @param subject the subject
	 * @param cost the cost
	 * @return the check
	 */
	public RateLimitCheck check(RateLimitPolicy policy, String subject, long cost) {
		return new RateLimitCheck(policy, subject, cost, this.mode == RuleMode.SHADOW, this.status, null,
				policy.algorithm().supportsReservations() ? this.waiting.maxWait() : Duration.ZERO);
	}

	/**
	 * Returns the check of this rule for a request, or {@code null} when its key (or the distinct value of a
	 * distinct rule) resolves to nothing.
	 * @param request the request
	 * @param failures told of a key, tier key or cost that cannot be resolved, before this rule falls back
	 * @return the check
	 */
	public @Nullable RateLimitCheck check(RateLimitRequest request, ResolutionFailures failures) {
		String subject;
		try {
			subject = this.key.resolve(request);
		}
		catch (RuntimeException ex) {
			// A key that cannot be resolved (e.g. a failing expression) must not escape the limit: use the IP.
			failures.report(this.name, ResolutionPart.KEY, ex);
			subject = request.clientIp();
		}
		if (subject == null) {
			return null;
		}
		long units;
		try {
			units = this.cost.resolve(request);
		}
		catch (RuntimeException ex) {
			failures.report(this.name, ResolutionPart.COST, ex);
			units = 1;
		}
		boolean shadow = this.mode == RuleMode.SHADOW;
		if (this.distinct != null) {
			String value = distinctValue(request, failures);
			return (value != null)
					? RateLimitCheck.distinct(policyFor(request, failures), subject, value, shadow, this.status) : null;
		}
		return check(policyFor(request, failures), subject, units);
	}

	private @Nullable String distinctValue(RateLimitRequest request, ResolutionFailures failures) {
		try {
			return this.distinct.resolve(request);
		}
		catch (RuntimeException ex) {
			failures.report(this.name, ResolutionPart.DISTINCT, ex);
			return request.clientIp();
		}
	}

	/**
	 * Returns the policy of the request's tier, or the rule's policy when the tier is missing or unknown.
	 * @param request the request
	 * @param failures told of a tier key that cannot be resolved, before this rule uses its own policy
	 * @return the policy
	 */
	public RateLimitPolicy policyFor(RateLimitRequest request, ResolutionFailures failures) {
		if (this.tierKey == null) {
			return this.policy;
		}
		String tier;
		try {
			tier = this.tierKey.resolve(request);
		}
		catch (RuntimeException ex) {
			failures.report(this.name, ResolutionPart.TIER_KEY, ex);
			tier = null;
		}
		RateLimitPolicy tierPolicy = (tier != null) ? this.tiers.get(tier) : null;
		return (tierPolicy != null) ? tierPolicy : this.policy;
	}

}
