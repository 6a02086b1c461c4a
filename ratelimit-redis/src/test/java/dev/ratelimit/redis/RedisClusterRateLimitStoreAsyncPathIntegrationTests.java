package dev.ratelimit.redis;

import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.AsyncPathStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.RedisClusterTest;

/**
 * The store contract over the Cluster store's non-blocking forms: slot groups run concurrently and a denial refunds
 * the groups that admitted, all on Lettuce's futures.
 */
@RedisClusterTest
class RedisClusterRateLimitStoreAsyncPathIntegrationTests extends RedisClusterRateLimitStoreIntegrationTests {

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		return new AsyncPathStore(super.createStore(clock));
	}

}
