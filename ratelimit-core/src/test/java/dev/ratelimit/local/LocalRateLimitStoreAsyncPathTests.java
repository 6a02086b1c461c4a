package dev.ratelimit.local;

import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.AsyncPathStore;
import dev.ratelimit.test.MutableClock;

/** The store contract over the local store's non-blocking forms. */
class LocalRateLimitStoreAsyncPathTests extends LocalRateLimitStoreTests {

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		return new AsyncPathStore(super.createStore(clock));
	}

}
