package dev.ratelimit.adaptive;

import java.util.Objects;

/**
 * The settings of one adaptive concurrency limit.
 *
 * @param strategy how the limit follows latency
 * @param initialLimit the limit before any latency was measured, between {@code minLimit} and {@code maxLimit}
 * @param minLimit the lowest the limit goes, at least 1
 * @param maxLimit the highest the limit goes, at least {@code minLimit}
 */
public record AdaptiveSettings(AdaptiveStrategy strategy, int initialLimit, int minLimit, int maxLimit) {

	/** The default strategy. */
	public static final AdaptiveStrategy DEFAULT_STRATEGY = AdaptiveStrategy.GRADIENT2;

	/** The default initial limit. */
	public static final int DEFAULT_INITIAL_LIMIT = 20;

	/** The default lowest limit. */
	public static final int DEFAULT_MIN_LIMIT = 1;

	/** The default highest limit. */
	public static final int DEFAULT_MAX_LIMIT = 200;

	public AdaptiveSettings {
		Objects.requireNonNull(strategy, "strategy");
		if (minLimit < 1) {
			throw new IllegalArgumentException("minLimit must be at least 1 but was " + minLimit);
		}
		if (maxLimit < minLimit) {
			throw new IllegalArgumentException("maxLimit " + maxLimit + " is below minLimit " + minLimit);
		}
		if (initialLimit < minLimit || initialLimit > maxLimit) {
			throw new IllegalArgumentException("initialLimit " + initialLimit + " is outside [" + minLimit + ", "
					+ maxLimit + "]");
		}
	}

}
