package dev.ratelimit.rule;

import dev.ratelimit.InvalidRateLimitConfigurationException;

/**
 * Thrown at start-up (or on a configuration reload) when a rule, from {@code ratelimit.rules.*} or a
 * {@code @RateLimited} annotation, is invalid. Names the property or attribute and how to fix it.
 */
public class InvalidRateLimitRuleException extends InvalidRateLimitConfigurationException {

	/**
	 * @param property the property, e.g. {@code ratelimit.rules.login.limit}
	 * @param problem what is wrong
	 * @param fix how to fix it
	 */
	public InvalidRateLimitRuleException(String property, String problem, String fix) {
		super(property, problem, fix);
	}

}
