package dev.ratelimit.test;

import dev.ratelimit.RateLimiter;
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
	 * Empties the test Redis and the limiter's deny cache.
	 * @param connectionFactory the application's Redis connection factory
	 * @param limiter the application's limiter, a {@link ResilientRateLimiter}
	 */
	public static void start(RedisConnectionFactory connectionFactory, RateLimiter limiter) {
		try (var connection = connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		((ResilientRateLimiter) limiter).denyCache().clear();
	}

}
