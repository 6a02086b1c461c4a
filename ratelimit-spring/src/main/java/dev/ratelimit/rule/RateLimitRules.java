package dev.ratelimit.rule;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lists.RateLimitLists;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The rules in effect: the configured rules (replaced as a whole on a configuration reload) with the operators'
 * runtime overrides applied. Readers see one consistent snapshot per call; changes swap the snapshot atomically, so
 * the per-request path takes no lock. Which rules apply to a request is the {@link RuleMatcher}'s job.
 */
public final class RateLimitRules {

	private static final Log logger = LogFactory.getLog(RateLimitRules.class);

	private final ResolutionFailures resolutionFailures;

	private volatile Snapshot snapshot;

	private volatile RateLimitLists lists = RateLimitLists.none();

	/**
	 * Creates rules whose resolution failures are only logged.
	 * @param rules the configured rules
	 */
	public RateLimitRules(List<RateLimitRule> rules) {
		this(rules, ResolutionFailures.logOnly());
	}

	/**
	 * @param rules the configured rules
	 * @param resolutionFailures told of every key, tier key or cost that cannot be resolved
	 */
	public RateLimitRules(List<RateLimitRule> rules, ResolutionFailures resolutionFailures) {
		this.resolutionFailures = resolutionFailures;
		this.snapshot = Snapshot.of(rules, Map.of(), Map.of());
	}

	/** Returns the allow and deny lists that every adapter consults with these rules. */
	public RateLimitLists lists() {
		return this.lists;
	}

	/**
	 * Sets the allow and deny lists (none by default), once, when the rules are made.
	 * @param lists the lists
	 * @return these rules
	 */
	public RateLimitRules withLists(RateLimitLists lists) {
		this.lists = lists;
		return this;
	}

	/** Returns where a rule's key, tier key or cost that cannot be resolved is reported. */
	public ResolutionFailures resolutionFailures() {
		return this.resolutionFailures;
	}

	/** Returns every rule in effect, in configuration order. */
	public List<RateLimitRule> all() {
		return List.of(this.snapshot.effective);
	}

	/** Returns the rule in effect of that name. */
	public Optional<RateLimitRule> get(String name) {
		return Optional.ofNullable(this.snapshot.byName.get(name));
	}

	/** Returns the rule of that name as configured, without override. */
	public Optional<RateLimitRule> configured(String name) {
		return this.snapshot.configured.stream().filter((rule) -> rule.name().equals(name)).findFirst();
	}

	/** Returns the override of a rule, if any. */
	public Optional<RuleOverride> override(String name) {
		return Optional.ofNullable(this.snapshot.overrides.get(name));
	}

	/**
	 * Returns the exceptions of a rule made at runtime (subject to limit), without those of its configuration.
	 * @param name the rule name
	 * @return the limit per subject, empty when there is none
	 */
	public Map<String, Long> runtimeExceptions(String name) {
		return this.snapshot.exceptions.getOrDefault(name, Map.of());
	}

	/** Returns whether there are no rules. */
	public boolean isEmpty() {
		return this.snapshot.effective.length == 0;
	}

	/** Replaces the configured rules (a configuration reload); overrides stay. */
	public synchronized void replaceConfigured(List<RateLimitRule> rules) {
		this.snapshot = Snapshot.of(rules, this.snapshot.overrides, this.snapshot.exceptions);
	}

	/** Replaces the overrides; an override that no longer applies (unknown rule, invalid values) is ignored. */
	public synchronized void replaceOverrides(Map<String, RuleOverride> overrides) {
		if (!overrides.equals(this.snapshot.overrides)) {
			this.snapshot = Snapshot.of(this.snapshot.configured, Map.copyOf(overrides), this.snapshot.exceptions);
		}
	}

	/**
	 * Replaces the exceptions made at runtime (by rule name, then subject to limit); they are added to the configured
	 * ones, a runtime exception replacing a configured one of the same subject. An exception of an unknown rule, or
	 * whose limit makes no valid policy, is ignored.
	 */
	public synchronized void replaceExceptions(Map<String, Map<String, Long>> exceptions) {
		if (!exceptions.equals(this.snapshot.exceptions)) {
			Map<String, Map<String, Long>> copy = new LinkedHashMap<>();
			exceptions.forEach((rule, limits) -> copy.put(rule, Map.copyOf(limits)));
			this.snapshot = Snapshot.of(this.snapshot.configured, this.snapshot.overrides, Map.copyOf(copy));
		}
	}

	/** Returns the rules in effect without a copy, for the per-request path; callers must not change it. */
	RateLimitRule[] effective() {
		return this.snapshot.effective;
	}

	private record Snapshot(List<RateLimitRule> configured, Map<String, RuleOverride> overrides,
			Map<String, Map<String, Long>> exceptions, RateLimitRule[] effective, Map<String, RateLimitRule> byName) {

		static Snapshot of(List<RateLimitRule> configured, Map<String, RuleOverride> overrides,
				Map<String, Map<String, Long>> exceptions) {
			Map<String, RateLimitRule> byName = new LinkedHashMap<>();
			for (RateLimitRule rule : configured) {
				RuleOverride override = overrides.get(rule.name());
				RateLimitRule effective = rule;
				if (override != null) {
					try {
						effective = override.applyTo(rule);
					}
					catch (IllegalArgumentException ex) {
						logger.warn("Ignoring the override of rule '" + rule.name() + "': " + ex.getMessage());
					}
				}
				byName.put(rule.name(), withExceptions(effective, exceptions.getOrDefault(rule.name(), Map.of())));
			}
			return new Snapshot(List.copyOf(configured), Map.copyOf(overrides), exceptions,
					byName.values().toArray(RateLimitRule[]::new), byName);
		}

		private static RateLimitRule withExceptions(RateLimitRule rule, Map<String, Long> limits) {
			if (limits.isEmpty()) {
				return rule;
			}
			Map<String, RateLimitPolicy> policies = new LinkedHashMap<>(rule.exceptions());
			limits.forEach((subject, limit) -> {
				try {
					policies.put(subject, RateLimitRule.exceptionPolicy(rule.policy(), limit));
				}
				catch (IllegalArgumentException ex) {
					logger.warn("Ignoring the exception of rule '" + rule.name() + "' for a subject: " + ex.getMessage());
				}
			});
			return rule.toBuilder().exceptions(policies).build();
		}

	}

}
