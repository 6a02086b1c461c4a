package dev.ratelimit.rule;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where operators' rule overrides, and the per-subject exceptions of rules made at runtime, are kept so that every
 * instance applies them.
 */
public interface RuleOverrideRepository {

	/** How many exceptions a rule may have unless told otherwise ({@code ratelimit.exceptions.max-per-rule}). */
	int DEFAULT_MAX_EXCEPTIONS_PER_RULE = 1000;

	/** Returns every override by rule name. */
	Map<String, RuleOverride> load();

	/** Stores the override of a rule. */
	void save(String rule, RuleOverride override);

	/** Removes the override of a rule. */
	void remove(String rule);

	/**
	 * Returns the exceptions made at runtime of these rules, by rule name then subject to limit (rules without
	 * exceptions may be left out). A repository that keeps none returns an empty map.
	 */
	default Map<String, Map<String, Long>> loadExceptions(Collection<String> rules) {
		return Map.of();
	}

	/**
	 * Stores an exception of a rule, replacing that subject's exception if it has one, unless the rule already has
	 * as many exceptions as allowed.
	 * @return {@code false} when the rule has as many exceptions as allowed and none for this subject
	 * @throws UnsupportedOperationException when this repository keeps no exceptions
	 */
	default boolean saveException(String rule, String subject, long limit) {
		throw new UnsupportedOperationException("This repository keeps no exceptions");
	}

	/** Removes an exception of a rule, if there is one. */
	default void removeException(String rule, String subject) {
	}

	/** An in-memory repository, for a single instance ({@code ratelimit.store=local}). */
	static RuleOverrideRepository inMemory() {
		return inMemory(DEFAULT_MAX_EXCEPTIONS_PER_RULE);
	}

	/**
	 * An in-memory repository, for a single instance ({@code ratelimit.store=local}).
	 * @param maxExceptionsPerRule how many exceptions a rule may have
	 */
	static RuleOverrideRepository inMemory(int maxExceptionsPerRule) {
		Map<String, RuleOverride> overrides = new ConcurrentHashMap<>();
		Map<String, Map<String, Long>> exceptions = new ConcurrentHashMap<>();
		return new RuleOverrideRepository() {

			@Override
			public Map<String, Map<String, Long>> loadExceptions(Collection<String> rules) {
				Map<String, Map<String, Long>> loaded = new LinkedHashMap<>();
				exceptions.forEach((rule, limits) -> loaded.put(rule, Map.copyOf(limits)));
				return loaded;
			}

			@Override
			public boolean saveException(String rule, String subject, long limit) {
				Map<String, Long> limits = exceptions.computeIfAbsent(rule, (name) -> new ConcurrentHashMap<>());
				synchronized (limits) {
					if (!limits.containsKey(subject) && limits.size() >= maxExceptionsPerRule) {
						return false;
					}
					limits.put(subject, limit);
					return true;
				}
			}

			@Override
			public void removeException(String rule, String subject) {
				Map<String, Long> limits = exceptions.get(rule);
				if (limits != null) {
					limits.remove(subject);
				}
			}

			@Override
			public Map<String, RuleOverride> load() {
				return Map.copyOf(overrides);
			}

			@Override
			public void save(String rule, RuleOverride override) {
				overrides.put(rule, override);
			}

			@Override
			public void remove(String rule) {
				overrides.remove(rule);
			}

		};
	}

}
