package dev.ratelimit.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import dev.ratelimit.Algorithm;
import dev.ratelimit.ClientIp;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimit;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveSettings;
import dev.ratelimit.resilience.StoreNodeStatus;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.rule.Periods;
import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RuleOverride;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.store.RateLimitStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code ratelimits} endpoint: the rules in effect and where their values come from, the adaptive concurrency
 * limits of this instance (current limit, requests in progress), one subject's state
 * (inspected without consuming anything; for a concurrency rule, the leases held), resetting a subject, runtime overrides shared through the store by every
 * instance, and the top offenders. Exposed over HTTP only if the application exposes it
 * ({@code management.endpoints.web.exposure.include}); secure it like any other actuator endpoint.
 */
@Endpoint(id = "ratelimits")
public class RateLimitsEndpoint {

	/** The name that reads the top offenders rather than a rule. */
	public static final String OFFENDERS = "offenders";

	/** The path segment after a rule's name under which its per-subject exceptions are read and written. */
	public static final String EXCEPTIONS = "exceptions";

	/** The name that reads and changes the allow and deny lists rather than a rule. */
	public static final String LISTS = "lists";

	/** The longest subject an exception may name. */
	static final int MAX_SUBJECT_LENGTH = 512;

	private final RateLimitRules rules;

	private final RateLimiter limiter;

	private final RateLimitStore store;

	private final RuleOverrideRepository overrides;

	private final @Nullable TopOffenders offenders;

	private final String storeName;

	private final StoreStatus status;

	private final AdaptiveConcurrencyLimits adaptiveLimits;

	private final ClientIp clientIp;

	private final @Nullable RateLimitListsAdmin lists;

	/** The time a calendar window's end is counted from when the store gives none (it always does). */
	private static final Clock CLOCK = Clock.systemUTC();

	/**
	 * @param rules the rules
	 * @param limiter the limiter (resets)
	 * @param status who decides, the circuit breaker and the deny cache, as shown
	 * @param store the store, peeked at directly by inspections so that they consume nothing and count in no metric,
	 * offender view or cache
	 * @param overrides where overrides are shared
	 * @param offenders the top offenders, or {@code null}
	 * @param storeName the store's name as shown
	 */
	public RateLimitsEndpoint(RateLimitRules rules, RateLimiter limiter, StoreStatus status, RateLimitStore store,
			RuleOverrideRepository overrides, @Nullable TopOffenders offenders, String storeName) {
		this(rules, limiter, status, store, overrides, offenders, storeName, AdaptiveConcurrencyLimits.none());
	}

	/**
	 * @param rules the rules
	 * @param limiter the limiter (resets)
	 * @param status who decides, the circuit breaker and the deny cache, as shown
	 * @param store the store, peeked at directly by inspections so that they consume nothing and count in no metric,
	 * offender view or cache
	 * @param overrides where overrides are shared
	 * @param offenders the top offenders, or {@code null}
	 * @param storeName the store's name as shown
	 * @param adaptiveLimits this instance's adaptive concurrency limits
	 */
	public RateLimitsEndpoint(RateLimitRules rules, RateLimiter limiter, StoreStatus status, RateLimitStore store,
			RuleOverrideRepository overrides, @Nullable TopOffenders offenders, String storeName,
			AdaptiveConcurrencyLimits adaptiveLimits) {
		this(rules, limiter, status, store, overrides, offenders, storeName, adaptiveLimits, ClientIp.DEFAULT);
	}

	/**
	 * @param rules the rules
	 * @param limiter the limiter (resets)
	 * @param status who decides, the circuit breaker and the deny cache, as shown
	 * @param store the store, peeked at directly by inspections so that they consume nothing and count in no metric,
	 * offender view or cache
	 * @param overrides where overrides are shared
	 * @param offenders the top offenders, or {@code null}
	 * @param storeName the store's name as shown
	 * @param adaptiveLimits the adaptive concurrency limits of this instance
	 * @param clientIp masks a subject written as an IP address into the client network that rules key
	 */
	public RateLimitsEndpoint(RateLimitRules rules, RateLimiter limiter, StoreStatus status, RateLimitStore store,
			RuleOverrideRepository overrides, @Nullable TopOffenders offenders, String storeName,
			AdaptiveConcurrencyLimits adaptiveLimits, ClientIp clientIp) {
		this(rules, limiter, status, store, overrides, offenders, storeName, adaptiveLimits, clientIp, null);
	}

	/**
	 * @param rules the rules
	 * @param limiter the limiter (resets)
	 * @param status who decides, the circuit breaker and the deny cache, as shown
	 * @param store the store, peeked at directly by inspections so that they consume nothing and count in no metric,
	 * offender view or cache
	 * @param overrides where overrides are shared
	 * @param offenders the top offenders, or {@code null}
	 * @param storeName the store's name as shown
	 * @param adaptiveLimits the adaptive concurrency limits of this instance
	 * @param clientIp masks a subject written as an IP address into the client network that rules key
	 * @param lists the allow and deny lists ({@value #LISTS}), or {@code null} when they cannot be changed here
	 */
	public RateLimitsEndpoint(RateLimitRules rules, RateLimiter limiter, StoreStatus status, RateLimitStore store,
			RuleOverrideRepository overrides, @Nullable TopOffenders offenders, String storeName,
			AdaptiveConcurrencyLimits adaptiveLimits, ClientIp clientIp, @Nullable RateLimitListsAdmin lists) {
		this.lists = lists;
		this.clientIp = clientIp;
		this.rules = rules;
		this.limiter = limiter;
		this.status = status;
		this.store = store;
		this.overrides = overrides;
		this.offenders = offenders;
		this.storeName = storeName;
		this.adaptiveLimits = adaptiveLimits;
	}

	@ReadOperation
	public RateLimitsDescriptor rateLimits() {
		CircuitBreaker.State circuit = this.status.circuitState();
		return new RateLimitsDescriptor(this.storeName, this.status.state().name().toLowerCase(Locale.ROOT),
				(circuit != null) ? circuit.name().toLowerCase(Locale.ROOT) : null, nodes(),
				this.status.denyCacheSize(), this.rules.all().stream().map(this::describe).toList(),
				this.adaptiveLimits.all().stream().map(RateLimitsEndpoint::describe).toList());
	}

	/** Returns each master of a Redis Cluster by node id, or {@code null} for a store on one server. */
	private @Nullable Map<String, NodeDescriptor> nodes() {
		Map<String, StoreNodeStatus> masters = this.status.nodes();
		if (masters.isEmpty()) {
			return null;
		}
		Map<String, NodeDescriptor> nodes = new LinkedHashMap<>();
		masters.forEach((id, node) -> nodes.put(id, new NodeDescriptor(node.description(),
				node.state().name().toLowerCase(Locale.ROOT), node.circuit().name().toLowerCase(Locale.ROOT))));
		return nodes;
	}

	/**
	 * Returns one rule (a rate rule, or an adaptive one), the top offenders for {@value #OFFENDERS}, or the allow and
	 * deny lists for {@value #LISTS}; {@code null} for an unknown rule.
	 */
	@ReadOperation
	public @Nullable Object rule(@Selector String name) {
		if (OFFENDERS.equals(name)) {
			return offenders();
		}
		if (LISTS.equals(name) && this.lists != null) {
			return this.lists.describe();
		}
		Optional<AdaptiveConcurrencyLimit> adaptive = this.adaptiveLimits.get(name);
		if (adaptive.isPresent()) {
			return describe(adaptive.get());
		}
		return this.rules.get(name).map(this::describe).orElse(null);
	}

	/** Returns the top offenders per rule over the recent window. */
	public OffendersDescriptor offenders() {
		return new OffendersDescriptor((this.offenders != null) ? this.offenders.top(10) : Map.of());
	}

	/**
	 * Returns a subject's state without consuming anything, or {@code null} for an unknown rule or tier.
	 * @param rule the rule
	 * @param key the subject as the rule resolves it (may contain '/'); a client's IP address is read as the client
	 * network it belongs to (e.g. {@code 2001:db8:1:2::7} as {@code 2001:db8:1:2::/64}), which rules key
	 * @param tier the subject's tier for rules with tiers, or {@code null} for the rule's own limit
	 */
	public @Nullable SubjectDescriptor subject(String rule, String[] key, @Nullable String tier) {
		return subject(rule, key, tier, null);
	}

	/**
	 * Returns a subject's state without consuming anything, or {@code null} for an unknown rule or tier.
	 * @param rule the rule
	 * @param key the subject as the rule resolves it (may contain '/'); a client's IP address is read as the client
	 * network it belongs to
	 * @param tier the subject's tier for rules with tiers, or {@code null} for the rule's own limit
	 * @param zone for a calendar quota, the subject's zone (what its {@code zone-key} gives for its requests, which
	 * this endpoint cannot resolve without a request), or {@code null} for the rule's {@code zone}; ignored by other
	 * rules
	 * @throws InvalidOverrideException when the zone is not an IANA zone id
	 */
	@ReadOperation
	public @Nullable SubjectDescriptor subject(@Selector String rule,
			@Selector(match = Selector.Match.ALL_REMAINING) String[] key, @Nullable String tier,
			@Nullable String zone) {
		Optional<RateLimitRule> found = this.rules.get(rule);
		if (found.isEmpty()) {
			return null;
		}
		ZoneId subjectZone = null;
		if (zone != null) {
			subjectZone = RateLimitRule.zoneOf(zone);
			if (subjectZone == null) {
				throw new InvalidOverrideException("zone is not an IANA zone id; use one such as Europe/Berlin or UTC");
			}
		}
		String subject = subject(key);
		// a subject's exception is its policy, whatever its tier (as for a request)
		RateLimitPolicy exception = found.get().exceptions().get(subject);
		RateLimitPolicy policy = (exception != null) ? exception
				: (tier != null) ? found.get().tiers().get(tier) : found.get().policy();
		if (policy == null) {
			return null;
		}
		policy = RateLimitRule.inZone(policy, subjectZone);
		Decision now = peek(policy, subject, 0);
		// what a request of cost 1 would get: its wait, whatever the algorithm (zero if a unit came back meanwhile)
		Duration retryAfter = (now.remaining() == 0) ? peek(policy, subject, 1).retryAfter() : Duration.ZERO;
		LeasesDescriptor leases = null;
		if (policy.algorithm() == Algorithm.CONCURRENCY) {
			// only an admission reclaims, so only the peek of one reports what it would reclaim: known while a slot is free
			Long expired = (now.remaining() > 0) ? peek(policy, subject, 1).reclaimed() : null;
			leases = new LeasesDescriptor(now.limit() - now.remaining(), expired, now.resetAfter().toString(),
					policy.leaseTimeout().toString());
		}
		QuotaUsage usage = QuotaUsage.of(policy, subject, tier, now, CLOCK.instant());
		return new SubjectDescriptor(rule, subject, tier, now.limit(), usage.used(), now.remaining(),
				now.resetAfter().toString(), (usage.resetsAt() != null) ? usage.resetsAt().toString() : null,
				retryAfter.toString(), leases);
	}

	/** Resets a subject (an IP address: its client network); {@code null} for an unknown rule. */
	@DeleteOperation
	public @Nullable SubjectDescriptor reset(@Selector String rule, @Selector(match = Selector.Match.ALL_REMAINING) String[] key) {
		Optional<RateLimitRule> found = this.rules.get(rule);
		if (found.isEmpty()) {
			return null;
		}
		String subject = subject(key);
		this.limiter.reset(found.get().policy(), subject);
		for (RateLimitPolicy tier : found.get().tiers().values()) {
			this.limiter.reset(tier, subject);
		}
		return subject(rule, key, null);
	}

	/**
	 * Overrides a rule's values on every instance.
	 * @throws InvalidOverrideException when a value is invalid
	 * @return the rule as it is now, or {@code null} for an unknown rule
	 */
	@WriteOperation
	public @Nullable RuleDescriptor override(@Selector String rule, @Nullable Long limit, @Nullable String period,
			@Nullable Long burst, @Nullable String mode) {
		Optional<RateLimitRule> configured = this.rules.configured(rule);
		if (configured.isEmpty()) {
			return null;
		}
		if (limit == null && period == null && burst == null && mode == null) {
			throw new InvalidOverrideException("give at least one of limit, period, burst or mode");
		}
		RuleOverride override = new RuleOverride(limit, parsePeriod(period), burst, parseMode(mode));
		try {
			override.applyTo(configured.get());
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOverrideException(ex.getMessage());
		}
		this.overrides.save(rule, override);
		this.rules.replaceOverrides(this.overrides.load());
		return this.rules.get(rule).map(this::describe).orElse(null);
	}

	/** Returns a rule to its configured values; {@code null} for an unknown rule. */
	@DeleteOperation
	public @Nullable RuleDescriptor removeOverride(@Selector String rule) {
		if (this.rules.configured(rule).isEmpty()) {
			return null;
		}
		this.overrides.remove(rule);
		this.rules.replaceOverrides(this.overrides.load());
		return this.rules.get(rule).map(this::describe).orElse(null);
	}

	/**
	 * Returns a rule's per-subject exceptions by subject, those of its configuration and those made at runtime (which
	 * replace a configured one of the same subject); {@code null} for an unknown rule.
	 */
	public @Nullable ExceptionsDescriptor exceptions(String rule) {
		Optional<RateLimitRule> configured = this.rules.configured(rule);
		if (configured.isEmpty()) {
			return null;
		}
		Map<String, ExceptionDescriptor> exceptions = new TreeMap<>();
		configured.get().exceptions().forEach((subject, policy) -> exceptions.put(subject,
				new ExceptionDescriptor(subject, policy.limit(), "configuration")));
		this.rules.runtimeExceptions(rule).forEach((subject, limit) -> exceptions.put(subject,
				new ExceptionDescriptor(subject, limit, "runtime")));
		return new ExceptionsDescriptor(rule, List.copyOf(exceptions.values()));
	}

	/**
	 * Gives one subject of a rule its own limit on every instance ({@code POST .../{rule}/exceptions}), replacing
	 * that subject's exception if it has one.
	 * @param rule the rule
	 * @param section {@value #EXCEPTIONS}
	 * @param subject the subject as the rule's key resolves it; an IP address stands for its client network
	 * @param limit the subject's limit per period of the rule
	 * @return the rule's exceptions as they are now, or {@code null} when {@code section} is not {@value #EXCEPTIONS}
	 * @throws InvalidOverrideException for an unknown rule, a missing or too long subject, a missing or invalid
	 * limit, and a rule that has as many exceptions as allowed
	 */
	@WriteOperation
	public @Nullable ExceptionsDescriptor addException(@Selector String rule, @Selector String section,
			@Nullable String subject, @Nullable Long limit) {
		if (!EXCEPTIONS.equals(section)) {
			return null;
		}
		RateLimitRule configured = knownRule(rule);
		if (subject == null || subject.isBlank()) {
			throw new InvalidOverrideException("give the subject, as the rule's key resolves it, e.g."
					+ " {\"subject\": \"user-42\", \"limit\": 1000}");
		}
		if (subject.length() > MAX_SUBJECT_LENGTH) {
			throw new InvalidOverrideException("the subject is longer than " + MAX_SUBJECT_LENGTH + " characters");
		}
		if (limit == null) {
			throw new InvalidOverrideException("give the subject's limit per period, e.g. \"limit\": 1000");
		}
		try {
			RateLimitRule.exceptionPolicy(configured.policy(), limit);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOverrideException(ex.getMessage());
		}
		String normalized = subject(new String[] { subject.trim() });
		boolean saved;
		try {
			saved = this.overrides.saveException(rule, normalized, limit);
		}
		catch (UnsupportedOperationException ex) {
			throw new InvalidOverrideException("the rule override repository of this application keeps no exceptions");
		}
		if (!saved) {
			throw new InvalidOverrideException("rule '" + rule + "' has as many exceptions as"
					+ " ratelimit.exceptions.max-per-rule allows; remove one first, or raise it");
		}
		reloadExceptions();
		return exceptions(rule);
	}

	/**
	 * Removes the exception of one subject of a rule made at runtime ({@code DELETE .../{rule}/exceptions/{subject}}).
	 * @param rule the rule
	 * @param subject the subject's path segments; an IP address stands for its client network
	 * @return the rule's exceptions as they are now, or {@code null} when the subject has no runtime exception
	 * @throws InvalidOverrideException for an unknown rule, and for a subject whose exception is configured
	 */
	public @Nullable ExceptionsDescriptor removeException(String rule, String[] subject) {
		knownRule(rule);
		String normalized = subject(subject);
		if (!this.rules.runtimeExceptions(rule).containsKey(normalized)) {
			if (this.rules.configured(rule).get().exceptions().containsKey(normalized)) {
				throw new InvalidOverrideException("the exception of '" + normalized + "' is configured; remove it"
						+ " from ratelimit.rules." + rule + ".exceptions");
			}
			return null;
		}
		this.overrides.removeException(rule, normalized);
		reloadExceptions();
		return exceptions(rule);
	}

	/**
	 * Returns the allow and deny lists' operations ({@code POST .../lists/{list}}, {@code DELETE
	 * .../lists/{list}?entry=}), or {@code null} when this endpoint has none.
	 */
	public @Nullable RateLimitListsAdmin lists() {
		return this.lists;
	}

	private RateLimitRule knownRule(String rule) {
		return this.rules.configured(rule)
			.orElseThrow(() -> new InvalidOverrideException("unknown rule '" + rule + "'; the rules are "
					+ this.rules.all().stream().map(RateLimitRule::name).toList()));
	}

	private void reloadExceptions() {
		this.rules.replaceExceptions(
				this.overrides.loadExceptions(this.rules.all().stream().map(RateLimitRule::name).toList()));
	}

	/** The subject of a path's remaining segments; an IP address stands for its client network. */
	private String subject(String[] key) {
		String subject = String.join("/", key);
		return ClientIp.isAddress(subject) ? this.clientIp.subject(subject) : subject;
	}

	private Decision peek(RateLimitPolicy policy, String subject, long cost) {
		// a distinct rule has no value to present here: inspect what it has counted
		long units = (policy.algorithm() == Algorithm.DISTINCT) ? 0 : cost;
		return this.store.peek(List.of(new RateLimitCheck(policy, subject, units, false))).get(0);
	}

	private static @Nullable Duration parsePeriod(@Nullable String period) {
		if (period == null) {
			return null;
		}
		try {
			return Periods.parse(period);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOverrideException("period " + ex.getMessage());
		}
	}

	private static @Nullable RuleMode parseMode(@Nullable String mode) {
		if (mode == null) {
			return null;
		}
		try {
			return RuleMode.valueOf(mode.trim().toUpperCase(Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidOverrideException("mode '" + mode + "' is not enforce or shadow");
		}
	}

	private RuleDescriptor describe(RateLimitRule rule) {
		RateLimitPolicy policy = rule.policy();
		RuleOverride override = this.rules.override(rule.name()).orElse(null);
		Map<String, Long> tiers = new java.util.LinkedHashMap<>();
		rule.tiers().forEach((tier, tierPolicy) -> tiers.put(tier, tierPolicy.limit()));
		RuleValues configured = this.rules.configured(rule.name())
			.map((each) -> new RuleValues(each.policy().limit(), each.policy().period().toString(),
					each.policy().capacity(), each.mode().name().toLowerCase(Locale.ROOT)))
			.orElse(null);
		return new RuleDescriptor(rule.name(), policy.algorithm().configName(), policy.limit(),
				policy.period().toString(), policy.capacity(), rule.mode().name().toLowerCase(Locale.ROOT),
				rule.onStoreFailure().name().toLowerCase(Locale.ROOT), tiers, (override != null) ? "override" : "configuration",
				(override != null) ? configured : null, exceptionLimits(rule));
	}

	private static Map<String, Long> exceptionLimits(RateLimitRule rule) {
		Map<String, Long> limits = new TreeMap<>();
		rule.exceptions().forEach((subject, policy) -> limits.put(subject, policy.limit()));
		return limits;
	}

	private static AdaptiveRuleDescriptor describe(AdaptiveConcurrencyLimit limit) {
		AdaptiveSettings settings = limit.rule().settings();
		return new AdaptiveRuleDescriptor(limit.rule().name(), settings.strategy().configName(), limit.limit(),
				limit.inFlight(), settings.initialLimit(), settings.minLimit(), settings.maxLimit(),
				limit.rule().mode().name().toLowerCase(Locale.ROOT));
	}

	/**
	 * Every rule and the store; {@code adaptive} lists the adaptive concurrency rules, which are not rates. In a Redis
	 * Cluster, {@code state} and {@code circuit} sum up the masters ({@code partial} while some are unavailable; the
	 * most open circuit) and {@code nodes} shows each master, by node id; {@code nodes} is {@code null} for a store on
	 * one server.
	 */
	public record RateLimitsDescriptor(String store, String state, @Nullable String circuit,
			@Nullable Map<String, NodeDescriptor> nodes, long denyCacheSize, List<RuleDescriptor> rules,
			List<AdaptiveRuleDescriptor> adaptive) {
	}

	/**
	 * One master of a Redis Cluster, as the limiter sees it now.
	 * @param node its address and the slots it serves
	 * @param state who decides for its keys: {@code redis}, or {@code fallback} while it is unavailable
	 * @param circuit the state of its circuit breaker
	 */
	public record NodeDescriptor(String node, String state, String circuit) {
	}

	/**
	 * One adaptive concurrency rule of this instance: its current {@code limit} and the requests in progress under it
	 * ({@code inFlight}), which change with latency and load, and its settings.
	 */
	public record AdaptiveRuleDescriptor(String name, String strategy, int limit, int inFlight, int initialLimit,
			int minLimit, int maxLimit, String mode) {
	}

	/**
	 * One rule's effective values, where they come from, and the configured values when overridden. Periods are
	 * ISO-8601 durations; {@code burst} is the capacity (the limit unless set); {@code exceptions} is the limit per
	 * subject that has an exception (configured or made at runtime), by subject.
	 */
	public record RuleDescriptor(String name, String algorithm, long limit, String period, long burst, String mode,
			String onStoreFailure, Map<String, Long> tiers, String source, @Nullable RuleValues configured,
			Map<String, Long> exceptions) {
	}

	/** A rule's per-subject exceptions, configured and made at runtime, by subject. */
	public record ExceptionsDescriptor(String rule, List<ExceptionDescriptor> exceptions) {
	}

	/**
	 * One per-subject exception.
	 * @param subject the subject, as the rule's key resolves it
	 * @param limit its limit per period of the rule
	 * @param source {@code configuration} ({@code ratelimit.rules.<name>.exceptions}) or {@code runtime} (the
	 * actuator; shared through the store)
	 */
	public record ExceptionDescriptor(String subject, long limit, String source) {
	}

	/** A rule's overridable values. */
	public record RuleValues(long limit, String period, long burst, String mode) {
	}

	/**
	 * One subject's state; durations are ISO-8601; {@code tier} is the tier asked for, if any. {@code used} is
	 * {@code limit - remaining}; {@code resetsAt} (an ISO-8601 instant on the store's clock) is when the count is back
	 * to zero: for a calendar quota its window's end, even before anything is used; {@code null} when nothing is used
	 * under another rule. For a {@code concurrency} rule, {@code limit} is the cap of slots in flight,
	 * {@code remaining} the free slots, and {@code leases} what is held; {@code null} for the other algorithms.
	 */
	public record SubjectDescriptor(String rule, String subject, @Nullable String tier, long limit, long used,
			long remaining, String resetAfter, @Nullable String resetsAt, String retryAfter,
			@Nullable LeasesDescriptor leases) {
	}

	/**
	 * The leases held under a concurrency rule for one subject, by every instance sharing the store, read without
	 * acquiring or reclaiming anything.
	 *
	 * @param held the slots held now (requests in flight, when each costs 1)
	 * @param expired slots whose lease expired without a release (an instance stopped, or a request outlived the
	 * lease timeout), which the next admission reclaims; they no longer count. {@code null} while the cap is full: only
	 * an admission reclaims, so the store reports them for a request that would be admitted
	 * @param nextExpiry time until the earliest held slot expires unless released or renewed first (ISO-8601; zero
	 * when none is held)
	 * @param leaseTimeout how long a lease lives without a release or renewal (ISO-8601)
	 */
	public record LeasesDescriptor(long held, @Nullable Long expired, String nextExpiry, String leaseTimeout) {
	}

	/** The top offenders by rule. */
	public record OffendersDescriptor(Map<String, List<TopOffenders.Offender>> rules) {
	}

	/** An override that cannot be applied; the web extension answers 400 with the reason. */
	public static class InvalidOverrideException extends RuntimeException {

		public InvalidOverrideException(String reason) {
			super(reason);
		}

	}

}
