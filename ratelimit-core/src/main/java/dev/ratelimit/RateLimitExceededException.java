package dev.ratelimit;

import java.time.Duration;

/**
 * Thrown when a {@link RateLimited} call is denied. Carries the verdict; in Spring MVC it becomes a 429 response, or
 * a 503 when the denying rules say so ({@link #getStatus()}).
 */
public class RateLimitExceededException extends RuntimeException {

	private final Verdict verdict;

	public RateLimitExceededException(Verdict verdict) {
		super("Rate limit exceeded: " + String.join(", ",
				verdict.deniedIndexes().stream().map((i) -> verdict.checks().get(i).policy().name()).toList()));
		this.verdict = verdict;
	}

	/**
	 * Creates an exception of a denial that is not a store's verdict (e.g. an adaptive concurrency limit's).
	 * @param message the message
	 * @param verdict the verdict of the rate rules, if any (else an empty one)
	 */
	protected RateLimitExceededException(String message, Verdict verdict) {
		super(message);
		this.verdict = verdict;
	}

	/** Returns the verdict that denied the call. */
	public Verdict getVerdict() {
		return this.verdict;
	}

	/**
	 * Returns how the denial is answered: 503 when every denying rule says so (e.g. a {@code global} concurrency
	 * cap), else 429; see {@link Verdict#denialStatus()}.
	 */
	public DenialStatus getStatus() {
		return this.verdict.denialStatus();
	}

	/** Returns how long to wait before retrying. */
	public Duration getRetryAfter() {
		return this.verdict.retryAfter();
	}

}
