package dev.ratelimit.autoconfigure;

import dev.ratelimit.InvalidRateLimitConfigurationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains an invalid rate limit configuration at start-up: which property, what is wrong, and how to fix it.
 */
class InvalidRateLimitRuleFailureAnalyzer extends AbstractFailureAnalyzer<InvalidRateLimitConfigurationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidRateLimitConfigurationException cause) {
		return new FailureAnalysis("Invalid rate limit configuration '" + cause.getProperty() + "': "
				+ cause.getProblem() + ".", "Fix '" + cause.getProperty() + "'. " + cause.getFix() + ".", cause);
	}

}
