package dev.ratelimit.local;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncSettings;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract holds for rules in {@code sync: local} mode as seen by one instance: every rule of the contract
 * suite is local (those whose algorithm takes no delta, and reservations, go to the shared store, as in an
 * application), over the in-memory store as the shared one. The view holds what the instance admitted, so one
 * instance decides exactly as the shared store would; a state is held once the views are flushed.
 */
class LocalSyncStoreTests extends RateLimitStoreContractTests {

	private LocalRateLimitStore shared;

	private LocalSyncStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.shared = new LocalRateLimitStore(10_000, clock);
		this.store = new LocalSyncStore(this.shared, this.shared, (name) -> SyncSettings.defaults(1000), 10_000,
				clock::micros, () -> clock.micros() * 1_000L);
		return this.store;
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		this.store.flushAll().join();
		return this.shared.holds(policy, subject);
	}

	@AfterEach
	void closeStore() {
		this.store.close();
	}

	@Override
	protected boolean reservesWhereItDecides() {
		return false;
	}

	@Test
	void aCheckThatMayWaitIsDecidedByTheSharedStore() {
		RateLimitPolicy policy = RateLimitPolicy.of("waits", Algorithm.GCRA, 1, Duration.ofSeconds(1));
		RateLimitCheck waiting = RateLimitCheck.of(policy, "s").withMaxWait(Duration.ofSeconds(5));
		assertThat(this.store.decidesLocally(waiting)).isFalse();
		assertThat(this.store.decidesLocally(RateLimitCheck.of(policy, "s"))).isTrue();
		this.store.evaluate(List.of(waiting));
		assertThat(this.shared.holds(policy, "s")).as("in the shared store at once, no flush").isTrue();
		assertThat(this.store.evaluate(List.of(waiting)).get(0).delay()).isEqualTo(Duration.ofSeconds(1));
	}

}
