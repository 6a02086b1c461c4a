package dev.ratelimit.local;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;

class LocalRateLimitStoreTests extends RateLimitStoreContractTests {

	private LocalRateLimitStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.store = new LocalRateLimitStore(10_000, clock);
		return this.store;
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		return this.store.holds(policy, subject);
	}

}
