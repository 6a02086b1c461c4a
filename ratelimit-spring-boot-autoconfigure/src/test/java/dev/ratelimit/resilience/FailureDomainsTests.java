package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.Lease;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimitStoreException;
import dev.ratelimit.StoreState;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.StoreFailureMode;
import dev.ratelimit.test.MutableClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store split into failure domains (as a Redis Cluster is into masters): one failing part sends only its own
 * requests to the fallback, the whole is {@code FALLBACK} while a part in use is unavailable, and one change is
 * published when the failure begins and one when it ends, also when it ends by the part no longer being used (a master
 * replaced by its replica, whose breaker never closes).
 */
class FailureDomainsTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final NodeStore store = new NodeStore(new LocalRateLimitStore(1_000, this.clock));

	private final RateLimitPolicy policy = RateLimitPolicy.of("api", Algorithm.GCRA, 1_000, Duration.ofMinutes(1));

	private final List<StoreState> published = new CopyOnWriteArrayList<>();

	private final ResilientRateLimiter limiter = ResilientRateLimiter.builder(this.store)
		.fallbackStore(new LocalRateLimitStore(1_000, this.clock))
		.circuitBreaker(CircuitBreaker.of("test", CircuitBreakerConfig.custom()
			.slidingWindowSize(4)
			.minimumNumberOfCalls(2)
			.waitDurationInOpenState(Duration.ofHours(1))
			.build()))
		.denyCache(false)
		.failureModes((name) -> StoreFailureMode.LOCAL)
		.listener(new RateLimitListener() {

			@Override
			public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
				FailureDomainsTests.this.published.add(current);
			}

		})
		.build();

	@AfterEach
	void stopProbes() {
		this.limiter.close();
	}

	@Test
	void aFailedPartSendsOnlyItsOwnRequestsToTheFallbackAndIsNamed() {
		this.store.failing.add("a");
		for (int i = 0; i < 10; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.policy, "a-" + i));
		}
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.limiter.unavailableNodes()).containsExactly("a");
		assertThat(this.limiter.circuitState()).isEqualTo(CircuitBreaker.State.OPEN);
		int callsBefore = this.store.calls;
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.evaluate(RateLimitCheck.of(this.policy, "b-" + i)).allowed()).isTrue();
		}
		assertThat(this.store.calls - callsBefore).as("part b keeps being decided by the store").isEqualTo(10);
		assertThat(this.published).containsExactly(StoreState.FALLBACK);
	}

	@Test
	void theWholeRecoversOnceTheFailedPartIsNoLongerUsed() {
		this.store.failing.add("a");
		for (int i = 0; i < 10; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.policy, "a-" + i));
		}
		assertThat(this.published).containsExactly(StoreState.FALLBACK);
		// a failover: the keys of part a are now served by a new part, and a no longer serves any
		this.store.retired.add("a");
		this.store.renamed.put("a", "a2");
		this.limiter.evaluate(RateLimitCheck.of(this.policy, "a-1"));
		assertThat(this.limiter.state()).isEqualTo(StoreState.REDIS);
		assertThat(this.limiter.unavailableNodes()).isEmpty();
		assertThat(this.published).containsExactly(StoreState.FALLBACK, StoreState.REDIS);
	}

	/** A store whose parts are named by the subject's prefix before '-', each of which can be made to fail. */
	static final class NodeStore implements RateLimitStore, FailureDomains {

		private final RateLimitStore delegate;

		final Set<String> failing = ConcurrentHashMap.newKeySet();

		final Set<String> retired = ConcurrentHashMap.newKeySet();

		final Map<String, String> renamed = new ConcurrentHashMap<>();

		volatile int calls;

		NodeStore(RateLimitStore delegate) {
			this.delegate = delegate;
		}

		@Override
		public String domainOf(List<RateLimitCheck> checks) {
			String part = checks.get(0).subject().substring(0, checks.get(0).subject().indexOf('-'));
			return this.renamed.getOrDefault(part, part);
		}

		@Override
		public boolean isCurrent(String domain) {
			return !this.retired.contains(domain);
		}

		@Override
		public List<Decision> evaluate(List<RateLimitCheck> checks) {
			this.calls++;
			if (this.failing.contains(domainOf(checks))) {
				throw new RateLimitStoreException("down", new IllegalStateException());
			}
			return this.delegate.evaluate(checks);
		}

		@Override
		public List<Decision> peek(List<RateLimitCheck> checks) {
			return this.delegate.peek(checks);
		}

		@Override
		public List<Boolean> release(List<Lease> leases) {
			return this.delegate.release(leases);
		}

		@Override
		public List<Boolean> renew(List<Lease> leases) {
			return this.delegate.renew(leases);
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
			this.delegate.reset(policy, subject);
		}

	}

}
