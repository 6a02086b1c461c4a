package dev.ratelimit.sample;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.resilience.ResilientRateLimiter;

import org.springframework.context.ApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Gives every client its whole quota back in a running sample: empties its Redis (state and overrides) and the
 * limiter's memory of denials (the deny cache), so that no test depends on another's requests.
 */
public final class SampleQuotas {

	private SampleQuotas() {
	}

	/**
	 * Empties the sample's Redis and deny cache.
	 * @param context the running sample
	 */
	public static void restore(ApplicationContext context) {
		try (RedisConnection connection = context.getBean(RedisConnectionFactory.class).getConnection()) {
			connection.serverCommands().flushAll();
		}
		((ResilientRateLimiter) context.getBean(RateLimiter.class)).denyCache().clear();
	}

}
