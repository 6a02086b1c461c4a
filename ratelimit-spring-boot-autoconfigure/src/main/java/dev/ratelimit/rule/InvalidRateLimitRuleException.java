package dev.ratelimit.rule;

/**
 * Thrown at start-up when the rate limit configuration is invalid. Names the property and how to fix it.
 */
public class InvalidRateLimitRuleException extends RuntimeException {

	private final String property;

	private final String problem;

	private final String fix;

	/**
	 * @param property the property, e.g. {@code ratelimit.rules.login.limit}
	 * @param problem what is wrong
	 * @param fix how to fix it
	 */
	public InvalidRateLimitRuleException(String property, String problem, String fix) {
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
