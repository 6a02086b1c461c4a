package dev.ratelimit.autoconfigure;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Keeps rate limits in Redis when the application has a Lettuce {@code RedisConnectionFactory} (configured through
 * {@code spring.data.redis.*}: standalone, Sentinel or Cluster) and {@code ratelimit.store} is {@code auto} or
 * {@code redis}.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(LettuceConnectionFactory.class)
@Conditional(OnSharedStoreCondition.class)
public final class RateLimitRedisAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitRedisAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean(RateLimitStore.class)
	RedisRateLimitStore rateLimitStore(LettuceConnectionFactory connectionFactory, RateLimitProperties properties) {
		if (properties.getRedis().getTimeout().isNegative() || properties.getRedis().getTimeout().isZero()) {
			throw new InvalidRateLimitRuleException("ratelimit.redis.timeout", "must be positive",
					"Set it to how long a rate limit decision may wait for Redis, e.g. 100ms");
		}
		try {
			RedisRateLimitStore store = new RedisRateLimitStore(connectionFactory, properties.getKeyPrefix(),
					properties.getRedis().getTimeout());
			logger.info("Rate limits are kept in Redis (" + (connectionFactory.isClusterAware() ? "cluster" : "standalone or sentinel")
					+ "), key prefix '" + properties.getKeyPrefix() + "'");
			return store;
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitRuleException("ratelimit.key-prefix", ex.getMessage(),
					"Use a short prefix such as 'rl'");
		}
	}

}
