package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.SwitchableStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Leases go back to the store that granted them: the shared store, or the fallback memory while it was unavailable.
 */
class ResilientRateLimiterLeaseTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final LocalRateLimitStore shared = new LocalRateLimitStore(1_000, this.clock);

	private final SwitchableStore primary = new SwitchableStore(this.shared);

	private final LocalRateLimitStore memory = new LocalRateLimitStore(1_000, this.clock);

	private final RateLimitPolicy policy = RateLimitPolicy.concurrency("uploads", 1, Duration.ofMinutes(1));

	private final CircuitBreaker breaker = CircuitBreaker.of("test", CircuitBreakerConfig.custom()
		.slidingWindowSize(2)
		.minimumNumberOfCalls(1)
		.waitDurationInOpenState(Duration.ofMinutes(1))
		.clock(this.clock)
		.build());

	private final AtomicLong nanos = new AtomicLong();

	private final ResilientRateLimiter limiter = ResilientRateLimiter.builder(this.primary)
		.fallbackStore(this.memory)
		.circuitBreaker(this.breaker)
		.denyCache(false)
		.failureModes((name) -> StoreFailureMode.LOCAL)
		.nanoTime(this.nanos::get)
		.build();

	@Test
	void aLeaseOfTheSharedStoreIsReleasedThere() {
		List<Lease> leases = acquire();
		assertThat(free(this.shared)).isZero();
		assertThat(this.limiter.release(leases)).containsExactly(true);
		assertThat(free(this.shared)).isEqualTo(1);
		assertThat(this.limiter.release(leases)).containsExactly(false);
	}

	@Test
	void aLeaseOfTheFallbackIsReleasedThereAlsoOnceTheSharedStoreIsBack() {
		this.primary.setFailing(true);
		List<Lease> leases = acquire();
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(free(this.memory)).isZero();
		this.primary.setFailing(false);
		this.breaker.transitionToClosedState();
		assertThat(this.limiter.renew(leases)).containsExactly(true);
		assertThat(this.limiter.release(leases)).containsExactly(true);
		assertThat(free(this.memory)).isEqualTo(1);
		assertThat(free(this.shared)).isEqualTo(1);
	}

	@Test
	void aLeaseTheUnavailableSharedStoreHoldsIsLeftToExpire() {
		List<Lease> leases = acquire();
		this.primary.setFailing(true);
		assertThat(this.limiter.release(leases)).as("while the circuit is closed: the call fails")
			.containsExactly(false);
		this.breaker.transitionToOpenState();
		int calls = this.primary.calls();
		assertThat(this.limiter.release(leases)).as("while the circuit is open").containsExactly(false);
		assertThat(this.primary.calls()).isEqualTo(calls);
		this.clock.advance(Duration.ofMinutes(1));
		assertThat(free(this.shared)).isEqualTo(1);
	}

	private List<Lease> acquire() {
		Verdict verdict = this.limiter.evaluate(RateLimitCheck.of(this.policy, "alice"));
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.leases()).hasSize(1);
		return verdict.leases();
	}

	private long free(LocalRateLimitStore store) {
		return store.peek(List.of(RateLimitCheck.of(this.policy, "alice", 0))).get(0).remaining();
	}

}
