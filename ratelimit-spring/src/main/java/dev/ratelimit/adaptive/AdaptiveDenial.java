package dev.ratelimit.adaptive;

import java.time.Duration;

import dev.ratelimit.DenialStatus;

/**
 * A request that an adaptive concurrency limit denied: this instance already serves as many requests as the rule's
 * limit allows. It is the server's state, not the client's quota: the answer is 503 with a short
 * {@code Retry-After}.
 *
 * @param rule the rule that denied it
 * @param limit the rule's limit when it did
 * @param status how the denial is answered: 503 unless the rule's {@code status} says 429
 */
public record AdaptiveDenial(String rule, int limit, DenialStatus status) {

	/** The wait suggested to clients: places free up as requests complete, within a latency. */
	public static final Duration RETRY_AFTER = Duration.ofSeconds(1);

	/** Creates the denial of a rule answered with {@link DenialStatus#SERVICE_UNAVAILABLE}. */
	public AdaptiveDenial(String rule, int limit) {
		this(rule, limit, DenialStatus.SERVICE_UNAVAILABLE);
	}

}
