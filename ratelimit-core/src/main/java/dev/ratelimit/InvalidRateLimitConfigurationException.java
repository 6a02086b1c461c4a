package dev.ratelimit;

/**
 * Thrown at start-up (or on a configuration reload) when a rate limit setting is invalid: names the property, what is
 * wrong and how to fix it. {@link dev.ratelimit.rule.InvalidRateLimitRuleException} is the kind for rules.
 */
public class InvalidRateLimitConfigurationException extends RuntimeException {

	private final String property;

	private final String problem;

	private final String fix;

	/**
	 * @param property the property, e.g. {@code ratelimit.redis.timeout}
	 * @param problem what is wrong
	 * @param fix how to fix it
	 */
	public InvalidRateLimitConfigurationException(String property, String problem, String fix) {
		super(property + ": " + problem + ". " + fix);
		this.property = property;
		this.problem = problem;
		this.fix = fix;
	}

	public String getProperty() {
		return this.property;
	}

	public String getProblem() {
		return this.problem;
	}

	public String getFix() {
		return this.fix;
	}

}
