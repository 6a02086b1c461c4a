package dev.ratelimit.test;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.resilience.DenyCache;
import dev.ratelimit.resilience.ResilientRateLimiter;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Starts an HTTP test afresh against the shared test Redis: empties Redis and, because it was emptied behind the
 * limiter's back, makes the limiter forget the denials it remembers (its deny cache).
 */
public final class FreshState {

	private FreshState() {
	}

	/**
	 * Empties the test Redis and the limiter's deny cache (if it has one).
	 * @param connectionFactory the application's Redis connection factory
	 * @param limiter the application's limiter, a {@link ResilientRateLimiter}
	 */
	public static void start(RedisConnectionFactory connectionFactory, RateLimiter limiter) {
		try (var connection = connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		DenyCache denyCache = ((ResilientRateLimiter) limiter).denyCache();
		if (denyCache != null) {
			denyCache.clear();
		}
	}

}
