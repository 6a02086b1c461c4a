package dev.ratelimit.autoconfigure;

import dev.ratelimit.redis.RedisRateLimitStoreBuilder;

/**
 * Customizes the Redis store of the rate limiter (e.g. its timeout), after {@code ratelimit.redis.*} has been applied
 * to the builder. Beans of this type are applied in {@link org.springframework.core.annotation.Order order}.
 */
@FunctionalInterface
public interface RedisRateLimitStoreBuilderCustomizer {

	/**
	 * Customizes the builder.
	 * @param builder the builder
	 */
	void customize(RedisRateLimitStoreBuilder builder);

}
