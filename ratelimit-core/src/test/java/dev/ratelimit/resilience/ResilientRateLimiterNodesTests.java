package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStoreException;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Failure isolation per node on an in-memory store whose subjects live on named nodes that can fail one by one, as
 * the masters of a Redis Cluster do; {@code ClusterNodeIsolationIntegrationTests} proves the same on a real Cluster
 * whose master is killed.
 */
class ResilientRateLimiterNodesTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final NodeStore store = new NodeStore(new LocalRateLimitStore(1_000, this.clock));

	private final RateLimitPolicy local = RateLimitPolicy.of("local", Algorithm.FIXED_WINDOW, 1_000,
			Duration.ofMinutes(1));

	private final RateLimitPolicy closed = RateLimitPolicy.of("closed", Algorithm.FIXED_WINDOW, 1_000,
			Duration.ofMinutes(1));

	private final CircuitBreakerRegistry registry = CircuitBreakerRegistry.ofDefaults();

	private final List<String> changes = new CopyOnWriteArrayList<>();

	private final ResilientRateLimiter limiter = ResilientRateLimiter.builder(this.store)
		.fallbackStore(new LocalRateLimitStore(1_000, this.clock))
		.circuitBreakerRegistry(this.registry)
		.circuitBreakerConfig(CircuitBreakerConfig.custom()
			.slidingWindowSize(4)
			.minimumNumberOfCalls(2)
			.failureRateThreshold(50)
			.waitDurationInOpenState(Duration.ofMinutes(1))
			.build())
		.denyCache(false)
		.failureModes((name) -> name.equals("closed") ? StoreFailureMode.DENY : StoreFailureMode.LOCAL)
		.listener(new RateLimitListener() {

			@Override
			public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
				ResilientRateLimiterNodesTests.this.changes.add(previous + "->" + current);
			}

			@Override
			public void onStoreNodeStateChange(String node, StoreState previous, StoreState current,
					@Nullable Throwable cause) {
				ResilientRateLimiterNodesTests.this.changes.add(node + ":" + previous + "->" + current);
			}

		})
		.build();

	@AfterEach
	void stopProbes() {
		this.limiter.close();
	}

	@Test
	void aFailingNodeOpensOnlyItsOwnBreakerAndTheOthersKeepDeciding() {
		this.store.place("a1", "A").place("b1", "B").place("c1", "C");
		decideAll();
		this.store.fail("A");
		decide(this.local, "a1");
		decide(this.local, "a1");
		assertThat(this.limiter.state()).isEqualTo(StoreState.PARTIAL);
		int calls = this.store.calls;
		Verdict onA = this.limiter.evaluate(RateLimitCheck.of(this.closed, "a1"));
		assertThat(onA.storeUnavailable()).as("a deny rule with its key on the failed node").isTrue();
		assertThat(this.store.calls).as("no call to the open node").isEqualTo(calls);
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.closed, "b1")).storeUnavailable()).isFalse();
		assertThat(this.store.calls).as("the healthy nodes still decide").isEqualTo(calls + 1);
		assertThat(this.changes).containsExactly("A:REDIS->FALLBACK", "REDIS->PARTIAL");
		assertThat(this.limiter.nodes()).hasSize(3).allSatisfy((node, status) -> assertThat(status.state())
			.isEqualTo(node.equals("A") ? StoreState.FALLBACK : StoreState.REDIS));
		assertThat(this.limiter.nodes().get("A").description()).isEqualTo("host-A:6379 slots 0-99");
		assertThat(this.limiter.circuitState()).isEqualTo(CircuitBreaker.State.OPEN);
		assertThat(this.registry.getAllCircuitBreakers()).extracting(CircuitBreaker::getName)
			.containsExactlyInAnyOrder("ratelimit-store-A", "ratelimit-store-B", "ratelimit-store-C");
	}

	@Test
	void aRequestWithKeysOnAFailedAndAHealthyNodeFallsBackAsAWhole() {
		this.store.place("a1", "A").place("b1", "B");
		decideAll();
		this.store.fail("A");
		decide(this.local, "a1");
		decide(this.local, "a1");
		int calls = this.store.calls;
		Verdict spanning = this.limiter.evaluate(
				List.of(RateLimitCheck.of(this.local, "b1"), RateLimitCheck.of(this.closed, "a1")));
		assertThat(spanning.storeUnavailable()).isTrue();
		assertThat(this.store.calls).isEqualTo(calls);
		assertThat(this.limiter.nodes().get("B").state()).isEqualTo(StoreState.REDIS);
	}

	@Test
	void aFailureOfACallToSeveralNodesOpensOnlyTheBreakerItIsBlamedOn() {
		this.store.place("a1", "A").place("b1", "B");
		this.store.fail("A");
		for (int i = 0; i < 4; i++) {
			this.limiter.evaluate(List.of(RateLimitCheck.of(this.local, "b1"), RateLimitCheck.of(this.local, "a1")));
		}
		assertThat(this.limiter.nodes().get("A").state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.limiter.nodes().get("B").circuit()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.registry.circuitBreaker("ratelimit-store-B").getMetrics().getNumberOfFailedCalls()).isZero();
	}

	@Test
	void clusterDownRepliesOfAHealthyNodeAreNotItsFailure() {
		this.store.place("a1", "A").place("b1", "B");
		this.store.clusterDown = true;
		for (int i = 0; i < 10; i++) {
			Verdict verdict = this.limiter.evaluate(RateLimitCheck.of(this.closed, "b1"));
			assertThat(verdict.storeUnavailable()).as("each such request falls back").isTrue();
		}
		assertThat(this.limiter.state()).isEqualTo(StoreState.REDIS);
		assertThat(this.changes).isEmpty();
	}

	@Test
	void aReplicaThatTakesOverStartsClosedAndTheFailedMasterIsRetired() {
		this.store.place("a1", "A").place("b1", "B");
		decideAll();
		this.store.fail("A");
		decide(this.local, "a1");
		decide(this.local, "a1");
		assertThat(this.limiter.state()).isEqualTo(StoreState.PARTIAL);
		// the replica A2 takes over A's slots; A serves nothing any more
		this.store.promote("A", "A2");
		Verdict verdict = this.limiter.evaluate(RateLimitCheck.of(this.closed, "a1"));
		assertThat(verdict.storeUnavailable()).as("decided by the promoted replica at once").isFalse();
		assertThat(this.limiter.state()).isEqualTo(StoreState.REDIS);
		assertThat(this.limiter.nodes()).containsOnlyKeys("A2", "B");
		assertThat(this.changes).containsExactly("A:REDIS->FALLBACK", "REDIS->PARTIAL", "A:FALLBACK->REDIS",
				"PARTIAL->REDIS");
		assertThat(this.registry.getAllCircuitBreakers()).extracting(CircuitBreaker::getName)
			.containsExactlyInAnyOrder("ratelimit-store-A2", "ratelimit-store-B");
	}

	@Test
	void allNodesFailingIsFallback() {
		this.store.place("a1", "A").place("b1", "B");
		decideAll();
		this.store.fail("A").fail("B");
		for (int i = 0; i < 2; i++) {
			decide(this.local, "a1");
			decide(this.local, "b1");
		}
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.changes).containsExactly("A:REDIS->FALLBACK", "REDIS->PARTIAL", "B:REDIS->FALLBACK",
				"PARTIAL->FALLBACK");
	}

	private void decideAll() {
		for (String subject : this.store.nodeOf.keySet()) {
			decide(this.local, subject);
		}
	}

	private void decide(RateLimitPolicy policy, String subject) {
		this.limiter.evaluate(RateLimitCheck.of(policy, subject));
	}

	/** A store whose subjects live on named nodes, each of which can fail; its own nodes as a Cluster's would be. */
	private static final class NodeStore implements RateLimitStore, StoreNodes {

		private final RateLimitStore delegate;

		private final Map<String, String> nodeOf = new LinkedHashMap<>();

		private final Set<String> failing = ConcurrentHashMap.newKeySet();

		private volatile boolean clusterDown;

		private int calls;

		NodeStore(RateLimitStore delegate) {
			this.delegate = delegate;
		}

		NodeStore place(String subject, String node) {
			this.nodeOf.put(subject, node);
			return this;
		}

		NodeStore fail(String node) {
			this.failing.add(node);
			return this;
		}

		void promote(String failed, String replica) {
			this.nodeOf.replaceAll((subject, node) -> node.equals(failed) ? replica : node);
		}

		@Override
		public List<Decision> evaluate(List<RateLimitCheck> checks) {
			this.calls++;
			if (this.clusterDown) {
				throw new RateLimitStoreException("Redis failed: CLUSTERDOWN The cluster is down",
						new IllegalStateException("CLUSTERDOWN The cluster is down"));
			}
			for (String node : nodesOf(checks)) {
				if (this.failing.contains(node)) {
					throw new RateLimitStoreException("node " + node + " is down", new IllegalStateException());
				}
			}
			return this.delegate.evaluate(checks);
		}

		@Override
		public List<Decision> peek(List<RateLimitCheck> checks) {
			return this.delegate.peek(checks);
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
			this.delegate.reset(policy, subject);
		}

		@Override
		public StoreNodes nodes() {
			return this;
		}

		@Override
		public List<String> nodesOf(List<RateLimitCheck> checks) {
			Set<String> nodes = new LinkedHashSet<>();
			for (RateLimitCheck check : checks) {
				nodes.add(this.nodeOf.get(check.subject()));
			}
			return List.copyOf(nodes);
		}

		@Override
		public Map<String, String> serving() {
			Map<String, String> nodes = new LinkedHashMap<>();
			for (String node : this.nodeOf.values()) {
				nodes.put(node, "host-" + node + ":6379 slots 0-99");
			}
			return nodes;
		}

		@Override
		public Set<String> blame(Throwable failure, List<String> touched) {
			if (failure.getMessage().contains("CLUSTERDOWN")) {
				return Set.of();
			}
			return Set.copyOf(touched.stream().filter(this.failing::contains).toList());
		}

	}

}
