package dev.ratelimit.local;

import java.time.Duration;
import java.util.Map;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.region.RegionCounters;
import dev.ratelimit.region.RegionalStore;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;

/**
 * The store contract holds for rules with {@code scope: global} as one region sees them, over the Java reference
 * ({@link RegionCounters}) as the region's store of entries and the in-memory store for everything else: every rule of
 * the contract suite is global (those whose algorithm has no windows, and reservations, go to the shared store, as in
 * an application), with a peer region that the entries replicate to.
 */
class RegionalStoreContractTests extends RateLimitStoreContractTests {

	private LocalRateLimitStore shared;

	private RegionCounters counters;

	private RegionalStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.shared = new LocalRateLimitStore(10_000, clock);
		this.counters = new RegionCounters(clock::micros);
		this.store = new RegionalStore(this.shared, this.counters, "eu", Map.of("us", new RegionCounters(clock::micros)),
				(name) -> true, Duration.ofSeconds(1), 10_000, clock::micros, () -> clock.micros() * 1_000L);
		return this.store;
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		this.store.replicate().join();
		return RegionCounters.supports(policy) ? !this.counters.entries(policy, subject).isEmpty()
				: this.shared.holds(policy, subject);
	}

	@Override
	protected boolean reservesWhereItDecides() {
		return false;
	}

}
