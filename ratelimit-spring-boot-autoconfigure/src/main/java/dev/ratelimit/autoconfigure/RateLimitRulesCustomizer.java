package dev.ratelimit.autoconfigure;

import java.util.Map;

/**
 * Customizes the rule definitions before they are compiled: adds rules programmatically, or changes or removes
 * configured ones. The map holds the definitions of {@code ratelimit.rules}, by name and in order; a rule put here is
 * validated, logged and matched exactly like a configured one. Applied at start-up to the definitions of the
 * {@link RateLimitProperties} bean, and again on every reload of the configuration to the freshly bound ones, so rules
 * added here survive reloads. Beans of this type are applied in {@link org.springframework.core.annotation.Order
 * order}; they must only change the map, never register beans.
 */
@FunctionalInterface
public interface RateLimitRulesCustomizer {

	/**
	 * Customizes the rule definitions.
	 * @param rules the definitions by rule name, modifiable
	 */
	void customize(Map<String, RateLimitProperties.Rule> rules);

}
