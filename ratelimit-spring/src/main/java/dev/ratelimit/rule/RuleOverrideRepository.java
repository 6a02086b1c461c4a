package dev.ratelimit.rule;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where operators' rule overrides are kept so that every instance applies them.
 */
public interface RuleOverrideRepository {

	/** Returns every override by rule name. */
	Map<String, RuleOverride> load();

	/** Stores the override of a rule. */
	void save(String rule, RuleOverride override);

	/** Removes the override of a rule. */
	void remove(String rule);

	/** An in-memory repository, for a single instance ({@code ratelimit.store=local}). */
	static RuleOverrideRepository inMemory() {
		Map<String, RuleOverride> overrides = new ConcurrentHashMap<>();
		return new RuleOverrideRepository() {

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
