package dev.ratelimit.rule;

import java.time.Duration;
import java.time.ZoneId;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.sync.SyncSettings;
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
 * @param sync how it flushes when it decides from this instance's local views ({@code sync: local}), or {@code null}
 * when the shared store decides it exactly (the default)
 * @param exceptions the policy per subject that has an exception (its own limit, the rule's algorithm, period and
 * policy name), which replaces the rule's policy and the tier's for that subject; see {@link #exceptionPolicy}
 * @param settle where the cost of an admitted request is found when it ends ({@code settle}; its {@code cost} is then
 * an estimate, settled by {@link CostSettlement}), or {@code null} when the cost is known before it runs
 * @param zoneKey how to find the subject's own time zone for a calendar quota ({@code zone-key}), or {@code null} when
 * every subject counts in the calendar's zone; see {@link #inZone}
 */
public record RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
		Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
		StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct,
		@Nullable CountWhen countWhen, RuleWaiting waiting, @Nullable SyncSettings sync,
		Map<String, RateLimitPolicy> exceptions, @Nullable SettleSource settle, @Nullable KeyResolver zoneKey) {

	/** The IANA zone ids a {@code zone-key} may give: a fixed set, so the policies it makes stay few. */
	private static final Set<String> ZONE_IDS = Set.copyOf(ZoneId.getAvailableZoneIds());

	public RateLimitRule {
		tiers = Map.copyOf(tiers);
		exceptions = Map.copyOf(exceptions);
		Objects.requireNonNull(status, "status");
		if ((distinct != null) != (policy.algorithm() == Algorithm.DISTINCT)) {
			throw new IllegalArgumentException("A rule has distinct values exactly when its algorithm is distinct");
		}
		if (phase == RulePhase.AUTO) {
			throw new IllegalArgumentException("A compiled rule's phase is before or after authentication, not auto");
		}
		if (zoneKey != null && policy.calendar() == null) {
			throw new IllegalArgumentException("A zone key applies to a calendar quota only");
		}
	}

	/** Creates a rule whose subjects all count in the calendar's zone (no {@code zone-key}). */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct,
			@Nullable CountWhen countWhen, RuleWaiting waiting, @Nullable SyncSettings sync,
			Map<String, RateLimitPolicy> exceptions, @Nullable SettleSource settle) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, status, distinct, countWhen,
				waiting, sync, exceptions, settle, null);
	}

	/** Creates a rule whose cost is known before the request runs (no {@code settle}). */
	public RateLimitRule(String name, RequestMatch match, KeyResolver key, RateLimitPolicy policy,
			Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey, CostResolver cost, RuleMode mode,
			StoreFailureMode onStoreFailure, RulePhase phase, DenialStatus status, @Nullable KeyResolver distinct,
			@Nullable CountWhen countWhen, RuleWaiting waiting, @Nullable SyncSettings sync,
			Map<String, RateLimitPolicy> exceptions) {
		this(name, match, key, policy, tiers, tierKey, cost, mode, onStoreFailure, phase, status, distinct, countWhen,
				waiting, sync, exceptions, null, null);
	}

	/**
	 * Starts a rule for code that compiles its rules itself (a test, a {@code RateLimitRules} of its own; rules added
	 * beside {@code ratelimit.rules} go through a {@code RateLimitRulesCustomizer} instead): every request, keyed by
	 * the client IP, one unit per request, enforced, the local store while the shared one is unavailable, applied
	 * before authentication, denials answered with 429, no tiers, no waiting: the defaults of a
	 * {@code ratelimit.rules.*} entry, except that the phase is not worked out from the key (set {@link Builder#phase}
	 * for a rule keyed by the user).
	 * @param name the rule name
	 * @param policy the policy for requests without a known tier
	 * @return a builder
	 */
	public static Builder builder(String name, RateLimitPolicy policy) {
		return new Builder(name, policy);
	}

	/**
	 * Returns a builder that starts from this rule.
	 * @return a builder holding every component of this rule
	 */
	public Builder toBuilder() {
		Builder builder = new Builder(this.name, this.policy);
		builder.match = this.match;
		builder.key = this.key;
		builder.tiers = this.tiers;
		builder.tierKey = this.tierKey;
		builder.cost = this.cost;
		builder.mode = this.mode;
		builder.onStoreFailure = this.onStoreFailure;
		builder.phase = this.phase;
		builder.status = this.status;
		builder.distinct = this.distinct;
		builder.countWhen = this.countWhen;
		builder.waiting = this.waiting;
		builder.sync = this.sync;
		builder.exceptions = this.exceptions;
		builder.settle = this.settle;
		builder.zoneKey = this.zoneKey;
		return builder;
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
			return (value != null) ? RateLimitCheck.distinct(policyFor(request, subject, failures), subject, value,
					shadow, this.status) : null;
		}
		return check(policyFor(request, subject, failures), subject, units);
	}

	/**
	 * Returns the policy of a subject's exception, else the policy of the request's tier, else the rule's policy; for
	 * a calendar quota with a {@code zone-key}, counted in the request's zone.
	 * @param request the request
	 * @param subject the subject as the rule's key resolved it
	 * @param failures told of a tier key or zone key that cannot be resolved, before this rule uses its own policy or
	 * zone
	 * @return the policy
	 */
	public RateLimitPolicy policyFor(RateLimitRequest request, String subject, ResolutionFailures failures) {
		RateLimitPolicy exception = this.exceptions.isEmpty() ? null : this.exceptions.get(subject);
		return (exception != null) ? inZone(exception, zoneFor(request, failures)) : policyFor(request, failures);
	}

	/**
	 * Returns a calendar quota's policy counted in another zone: the same name, limit and calendar unit, so a subject
	 * keeps one state in the store whatever its zone (the state holds its window's start, and a window of another zone
	 * counts as over, see decision 133).
	 * @param policy the policy
	 * @param zone the zone, or {@code null} for the policy's own
	 * @return the policy in that zone ({@code policy} itself when it has no calendar or already counts in it)
	 */
	public static RateLimitPolicy inZone(RateLimitPolicy policy, @Nullable ZoneId zone) {
		CalendarPeriod calendar = policy.calendar();
		if (zone == null || calendar == null || calendar.zone().equals(zone)) {
			return policy;
		}
		return new RateLimitPolicy(policy.name(), policy.algorithm(), policy.limit(), policy.period(), policy.burst(),
				policy.spreadWindows(), new CalendarPeriod(calendar.unit(), zone, calendar.weekStart()), policy.warmUp(),
				policy.coldFactor());
	}

	/**
	 * Reads an IANA zone id as a subject's zone: a region such as {@code Europe/Berlin} or {@code UTC}; not an offset
	 * ({@code +02:00}), whose windows would drift from the subject's calendar at each clock change.
	 * @param value the zone id
	 * @return the zone, or {@code null} when the value is not an IANA zone id
	 */
	public static @Nullable ZoneId zoneOf(String value) {
		String id = value.trim();
		return ZONE_IDS.contains(id) ? ZoneId.of(id) : null;
	}

	/**
	 * Returns the request's zone from the {@code zone-key}, or {@code null} for the calendar's own: when there is no
	 * zone key, it gives nothing, or (reported) it fails or gives a value that is not an IANA zone id.
	 */
	private @Nullable ZoneId zoneFor(RateLimitRequest request, ResolutionFailures failures) {
		if (this.zoneKey == null) {
			return null;
		}
		String value;
		try {
			value = this.zoneKey.resolve(request);
		}
		catch (RuntimeException ex) {
			failures.report(this.name, ResolutionPart.ZONE_KEY, ex);
			return null;
		}
		if (value == null || value.isBlank()) {
			return null;
		}
		ZoneId zone = zoneOf(value);
		if (zone == null) {
			// the value is the client's: it stays out of the report (which a listener may log or tag)
			failures.report(this.name, ResolutionPart.ZONE_KEY, new UnknownZoneException());
		}
		return zone;
	}

	/**
	 * Returns the policy of an exception of a rule: the rule's policy (name, algorithm, period or calendar, warm-up)
	 * with the exception's limit, whose burst is that limit. The policy name is the rule's, so the subject keeps the
	 * same state in the store when an exception is set, changed or removed.
	 * @param policy the rule's policy
	 * @param limit the exception's limit
	 * @return the policy
	 * @throws IllegalArgumentException when the limit does not make a valid policy, with the reason
	 */
	public static RateLimitPolicy exceptionPolicy(RateLimitPolicy policy, long limit) {
		return new RateLimitPolicy(policy.name(), policy.algorithm(), limit, policy.period(), 0,
				policy.spreadWindows(), policy.calendar(), policy.warmUp(), policy.coldFactor());
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
	 * Returns the policy of the request's tier, or the rule's policy when the tier is missing or unknown; for a
	 * calendar quota with a {@code zone-key}, counted in the request's zone.
	 * @param request the request
	 * @param failures told of a tier key or zone key that cannot be resolved, before this rule uses its own policy or
	 * zone
	 * @return the policy
	 */
	public RateLimitPolicy policyFor(RateLimitRequest request, ResolutionFailures failures) {
		RateLimitPolicy policy = tierPolicy(request, failures);
		return (this.zoneKey != null) ? inZone(policy, zoneFor(request, failures)) : policy;
	}

	private RateLimitPolicy tierPolicy(RateLimitRequest request, ResolutionFailures failures) {
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

	/** A zone key gave a value that is not an IANA zone id; the value is left out, as it is the client's. */
	static final class UnknownZoneException extends RuntimeException {

		UnknownZoneException() {
			super("not an IANA zone id", null, false, false);
		}

	}

	/**
	 * Builds a {@link RateLimitRule}; see {@link RateLimitRule#builder} for the defaults. Not thread-safe.
	 */
	public static final class Builder {

		private String name;

		private RateLimitPolicy policy;

		private RequestMatch match = RequestMatch.all();

		private KeyResolver key = RateLimitRequest::clientIp;

		private Map<String, RateLimitPolicy> tiers = Map.of();

		private @Nullable KeyResolver tierKey;

		private CostResolver cost = CostResolver.fixed(1);

		private RuleMode mode = RuleMode.ENFORCE;

		private StoreFailureMode onStoreFailure = StoreFailureMode.LOCAL;

		private RulePhase phase = RulePhase.BEFORE_AUTHENTICATION;

		private DenialStatus status = DenialStatus.TOO_MANY_REQUESTS;

		private @Nullable KeyResolver distinct;

		private @Nullable CountWhen countWhen;

		private RuleWaiting waiting = RuleWaiting.NONE;

		private @Nullable SyncSettings sync;

		private Map<String, RateLimitPolicy> exceptions = Map.of();

		private @Nullable SettleSource settle;

		private @Nullable KeyResolver zoneKey;

		private Builder(String name, RateLimitPolicy policy) {
			this.name = name;
			this.policy = policy;
		}

		/** Sets the policy for requests without a known tier. */
		public Builder policy(RateLimitPolicy policy) {
			this.policy = policy;
			return this;
		}

		/** Sets which requests the rule applies to (default: all). */
		public Builder match(RequestMatch match) {
			this.match = match;
			return this;
		}

		/** Sets whose quota a request uses (default: the client IP). */
		public Builder key(KeyResolver key) {
			this.key = key;
			return this;
		}

		/**
		 * Sets the policy per tier and how to find a request's tier.
		 * @param tiers the policy per tier name
		 * @param tierKey how to find a request's tier, or {@code null} without tiers
		 * @return this builder
		 */
		public Builder tiers(Map<String, RateLimitPolicy> tiers, @Nullable KeyResolver tierKey) {
			this.tiers = tiers;
			this.tierKey = tierKey;
			return this;
		}

		/** Sets the cost of a request (default: 1). */
		public Builder cost(CostResolver cost) {
			this.cost = cost;
			return this;
		}

		/** Sets whether the rule blocks or only reports (default: enforce). */
		public Builder mode(RuleMode mode) {
			this.mode = mode;
			return this;
		}

		/** Sets what to do while the shared store is unavailable (default: the local store). */
		public Builder onStoreFailure(StoreFailureMode onStoreFailure) {
			this.onStoreFailure = onStoreFailure;
			return this;
		}

		/** Sets where the filter applies the rule (default: before authentication; never {@code AUTO}). */
		public Builder phase(RulePhase phase) {
			this.phase = phase;
			return this;
		}

		/** Sets how denials are answered (default: 429). */
		public Builder status(DenialStatus status) {
			this.status = status;
			return this;
		}

		/** Sets the values a {@link Algorithm#DISTINCT distinct} rule counts per subject. */
		public Builder distinct(KeyResolver distinct) {
			this.distinct = distinct;
			return this;
		}

		/** Sets which outcomes of an admitted request count (default: all). */
		public Builder countWhen(CountWhen countWhen) {
			this.countWhen = countWhen;
			return this;
		}

		/** Sets how long requests may wait for a reserved slot, and how many at once (default: no waiting). */
		public Builder waiting(RuleWaiting waiting) {
			this.waiting = waiting;
			return this;
		}

		/** Sets how it flushes when it decides from local views, or {@code null} to decide exactly (the default). */
		public Builder sync(@Nullable SyncSettings sync) {
			this.sync = sync;
			return this;
		}

		/** Sets the policy per subject that has an exception (default: none); see {@link #exceptionPolicy}. */
		public Builder exceptions(Map<String, RateLimitPolicy> exceptions) {
			this.exceptions = exceptions;
			return this;
		}

		/**
		 * Sets where the cost of an admitted request is found when it ends, or {@code null} when it is known before it
		 * runs (the default).
		 */
		public Builder settle(@Nullable SettleSource settle) {
			this.settle = settle;
			return this;
		}

		/**
		 * Sets how to find the subject's own zone for a calendar quota, or {@code null} to count every subject in the
		 * calendar's zone (the default).
		 */
		public Builder zoneKey(@Nullable KeyResolver zoneKey) {
			this.zoneKey = zoneKey;
			return this;
		}

		/**
		 * Returns the rule.
		 * @throws IllegalArgumentException when the components do not fit together (see the record's constructor)
		 */
		public RateLimitRule build() {
			return new RateLimitRule(this.name, this.match, this.key, this.policy, this.tiers, this.tierKey, this.cost,
					this.mode, this.onStoreFailure, this.phase, this.status, this.distinct, this.countWhen, this.waiting,
					this.sync, this.exceptions, this.settle, this.zoneKey);
		}

	}

}
