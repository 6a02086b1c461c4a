package dev.ratelimit;

import java.time.Duration;

/**
 * Thrown when a {@link RateLimited} call is denied. Carries the verdict; in Spring MVC it becomes a 429 response.
 */
public class RateLimitExceededException extends RuntimeException {

	private final Verdict verdict;

	public RateLimitExceededException(Verdict verdict) {
		super("Rate limit exceeded: " + String.join(", ",
				verdict.deniedIndexes().stream().map((i) -> verdict.checks().get(i).policy().name()).toList()));
		this.verdict = verdict;
	}

	/** Returns the verdict that denied the call. */
	public Verdict getVerdict() {
		return this.verdict;
	}

	/** Returns how long to wait before retrying. */
	public Duration getRetryAfter() {
		return this.verdict.retryAfter();
	}

}
