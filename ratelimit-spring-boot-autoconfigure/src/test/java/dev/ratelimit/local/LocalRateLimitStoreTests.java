package dev.ratelimit.local;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.test.MutableClock;

class LocalRateLimitStoreTests extends RateLimitStoreContractTests {

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		return new LocalRateLimitStore(10_000, clock);
	}

}
