package dev.ratelimit.adaptive;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.DenialStatus;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.Verdict;

/**
 * Thrown when a {@link dev.ratelimit.RateLimited} call that names an {@code adaptive-concurrency} rule is denied
 * because this instance is at the rule's limit. No rate rule was evaluated, so the {@link #getVerdict() verdict} is
 * empty; in Spring MVC it becomes the same 503 (or the rule's {@code status}) as the filter's adaptive denial.
 */
public class AdaptiveLimitExceededException extends RateLimitExceededException {

	private final AdaptiveDenial denial;

	public AdaptiveLimitExceededException(AdaptiveDenial denial) {
		super("Adaptive concurrency limit exceeded: " + denial.rule() + " (" + denial.limit() + " at once)",
				new Verdict(List.of(), List.of()));
		this.denial = denial;
	}

	/** Returns the denial: the rule, its limit and the status to answer with. */
	public AdaptiveDenial getDenial() {
		return this.denial;
	}

	@Override
	public DenialStatus getStatus() {
		return this.denial.status();
	}

	@Override
	public Duration getRetryAfter() {
		return AdaptiveDenial.RETRY_AFTER;
	}

}
