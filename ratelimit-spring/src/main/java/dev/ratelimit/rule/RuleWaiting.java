package dev.ratelimit.rule;

import java.time.Duration;
import java.util.Objects;

/**
 * How a rule's requests may wait for a reserved slot instead of being denied.
 *
 * @param maxWait the longest wait for a slot; {@link Duration#ZERO} to deny at once
 * @param maxWaiting the most requests of this rule that wait at once in one instance; beyond it a request is answered
 * at once, as without {@code maxWait}
 */
public record RuleWaiting(Duration maxWait, int maxWaiting) {

	/** The default number of requests per rule and instance that may wait at once. */
	public static final int DEFAULT_MAX_WAITING = 100;

	/** Requests never wait. */
	public static final RuleWaiting NONE = new RuleWaiting(Duration.ZERO, DEFAULT_MAX_WAITING);

	public RuleWaiting {
		Objects.requireNonNull(maxWait, "maxWait");
		if (maxWait.isNegative()) {
			throw new IllegalArgumentException("maxWait must not be negative");
		}
		if (maxWaiting < 1) {
			throw new IllegalArgumentException("maxWaiting must be at least 1");
		}
	}

	/** Returns whether requests may wait. */
	public boolean waits() {
		return !this.maxWait.isZero();
	}

}
