package dev.ratelimit.rule;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
		this.snapshot = Snapshot.of(rules, Map.of());
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

	/** Returns whether there are no rules. */
	public boolean isEmpty() {
		return this.snapshot.effective.length == 0;
	}

	/** Replaces the configured rules (a configuration reload); overrides stay. */
	public synchronized void replaceConfigured(List<RateLimitRule> rules) {
		this.snapshot = Snapshot.of(rules, this.snapshot.overrides);
	}

	/** Replaces the overrides; an override that no longer applies (unknown rule, invalid values) is ignored. */
	public synchronized void replaceOverrides(Map<String, RuleOverride> overrides) {
		if (!overrides.equals(this.snapshot.overrides)) {
			this.snapshot = Snapshot.of(this.snapshot.configured, Map.copyOf(overrides));
		}
	}

	/** Returns the rules in effect without a copy, for the per-request path; callers must not change it. */
	RateLimitRule[] effective() {
		return this.snapshot.effective;
	}

	private record Snapshot(List<RateLimitRule> configured, Map<String, RuleOverride> overrides,
			RateLimitRule[] effective, Map<String, RateLimitRule> byName) {

		static Snapshot of(List<RateLimitRule> configured, Map<String, RuleOverride> overrides) {
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
				byName.put(rule.name(), effective);
			}
			return new Snapshot(List.copyOf(configured), Map.copyOf(overrides),
					byName.values().toArray(RateLimitRule[]::new), byName);
		}

	}

}
