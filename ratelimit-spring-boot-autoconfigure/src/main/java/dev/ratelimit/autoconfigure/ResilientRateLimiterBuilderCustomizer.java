package dev.ratelimit.autoconfigure;

import dev.ratelimit.resilience.ResilientRateLimiterBuilder;

/**
 * Customizes the {@link dev.ratelimit.resilience.ResilientRateLimiter} that the starter puts in front of Redis (the
 * circuit breaker's configuration, the deny cache, the fallback store), after {@code ratelimit.circuit-breaker.*},
 * {@code ratelimit.deny-cache.*} and {@code ratelimit.local.*} have been applied to the builder. Beans of this type
 * are applied in {@link org.springframework.core.annotation.Order order}.
 */
@FunctionalInterface
public interface ResilientRateLimiterBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder
	 */
	void customize(ResilientRateLimiterBuilder builder);

}
