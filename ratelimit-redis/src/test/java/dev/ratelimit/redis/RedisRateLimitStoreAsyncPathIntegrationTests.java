package dev.ratelimit.redis;

import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.AsyncPathStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.RedisStandaloneTest;

/** The store contract over the standalone Redis store's non-blocking forms (no thread waits inside the store). */
@RedisStandaloneTest
class RedisRateLimitStoreAsyncPathIntegrationTests extends RedisRateLimitStoreIntegrationTests {

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		return new AsyncPathStore(super.createStore(clock));
	}

}
