package dev.ratelimit.local;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RoutingRateLimitStore;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The store contract through named stores: the contract's rules are spread over two stores by name (and its
 * requests of several checks over both), and a request on both is admitted only when both admit it, the admitted part
 * given back otherwise; a store's failure is blamed on it alone.
 */
class RoutingRateLimitStoreTests extends RateLimitStoreContractTests {

	private LocalRateLimitStore traffic;

	private LocalRateLimitStore quotas;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.traffic = new LocalRateLimitStore(10_000, clock);
		this.quotas = new LocalRateLimitStore(10_000, clock);
		return routing(this.quotas);
	}

	private RoutingRateLimitStore routing(RateLimitStore quotaStore) {
		// every other rule of the contract suite, and the calendar quotas, on the second store
		return new RoutingRateLimitStore(Map.of("default", this.traffic, "quotas", quotaStore), "default",
				(rule) -> (rule.contains("calendar") || rule.contains("month") || rule.hashCode() % 2 == 0) ? "quotas"
						: null);
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		return this.traffic.holds(policy, subject) || this.quotas.holds(policy, subject);
	}

	@Test
	void aRequestOnBothStoresDeniedByOneGivesBackWhatTheOtherAdmitted() {
		RoutingRateLimitStore store = routing(this.quotas);
		RateLimitPolicy quota = RateLimitPolicy.of("month-quota", Algorithm.FIXED_WINDOW, 10, Duration.ofDays(30));
		RateLimitPolicy traffic = RateLimitPolicy.of("traffic-1", Algorithm.GCRA, 1, Duration.ofMinutes(1));
		assertThat(store.storeOf("month-quota")).isEqualTo("quotas");
		assertThat(store.storeOf("traffic-1")).isEqualTo("default");
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(quota, "alice", 3), RateLimitCheck.of(traffic, "alice"));
		assertThat(store.evaluate(request)).allMatch(Decision::allowed);
		List<Decision> denied = store.evaluate(request);
		assertThat(denied.get(1).allowed()).isFalse();
		assertThat(denied.get(0).remaining()).as("the quota's part given back, shown as inspected").isEqualTo(7);
		assertThat(this.quotas.peek(List.of(RateLimitCheck.of(quota, "alice", 0))).get(0).remaining()).isEqualTo(7);
	}

	@Test
	void aStoresFailureIsBlamedOnThatStoreOnly() {
		RateLimitStore failing = new RateLimitStore() {

			@Override
			public List<Decision> evaluate(List<RateLimitCheck> checks) {
				throw new IllegalStateException("connection refused");
			}

			@Override
			public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
				return CompletableFuture.failedFuture(new IllegalStateException("connection refused"));
			}

			@Override
			public List<Decision> peek(List<RateLimitCheck> checks) {
				throw new IllegalStateException("connection refused");
			}

			@Override
			public void reset(RateLimitPolicy policy, String subject) {
			}

		};
		RoutingRateLimitStore store = routing(failing);
		RateLimitPolicy quota = RateLimitPolicy.of("month-quota", Algorithm.FIXED_WINDOW, 10, Duration.ofDays(30));
		RateLimitPolicy traffic = RateLimitPolicy.of("traffic-1", Algorithm.GCRA, 5, Duration.ofMinutes(1));
		List<RateLimitCheck> both = List.of(RateLimitCheck.of(quota, "alice"), RateLimitCheck.of(traffic, "alice"));
		assertThat(store.nodes().nodesOf(both)).containsExactly("quotas", "default");
		Throwable failure = store.evaluateAsync(both).handle((decisions, ex) -> ex).join();
		assertThat(store.nodes().blame(failure, List.of("quotas", "default"))).containsExactly("quotas");
		assertThat(this.traffic.peek(List.of(RateLimitCheck.of(traffic, "alice", 0))).get(0).remaining())
			.as("the traffic part given back").isEqualTo(5);
		assertThat(store.evaluate(List.of(RateLimitCheck.of(traffic, "alice"))).get(0).allowed()).isTrue();
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> store.evaluate(List.of(RateLimitCheck.of(quota, "alice"))))
			.withCauseInstanceOf(RoutingRateLimitStore.NamedStoreException.class);
	}

}
