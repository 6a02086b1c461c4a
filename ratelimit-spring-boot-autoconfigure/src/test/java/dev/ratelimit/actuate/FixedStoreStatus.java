package dev.ratelimit.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.resilience.StoreNodeStatus;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * A store status that says what it was given: for tests of what health and the endpoint show.
 *
 * @param state who decides
 * @param circuitState the summed-up circuit
 * @param nodes each master of a Redis Cluster, by node id (empty for one server)
 */
record FixedStoreStatus(StoreState state, CircuitBreaker.State circuitState,
		Map<String, StoreNodeStatus> nodes) implements StoreStatus {

	/**
	 * Returns a Redis Cluster whose first master ({@code a1}, slots 0-5460) decides and whose second ({@code b2}, slots
	 * 5461-10921) is unavailable: {@code partial}, the most open circuit {@code open}.
	 */
	static FixedStoreStatus clusterWithOneFailedMaster() {
		Map<String, StoreNodeStatus> masters = new LinkedHashMap<>();
		masters.put("a1", new StoreNodeStatus("127.0.0.1:7001 slots 0-5460", StoreState.REDIS,
				CircuitBreaker.State.CLOSED));
		masters.put("b2", new StoreNodeStatus("127.0.0.1:7002 slots 5461-10921", StoreState.FALLBACK,
				CircuitBreaker.State.OPEN));
		return new FixedStoreStatus(StoreState.PARTIAL, CircuitBreaker.State.OPEN, masters);
	}

	@Override
	public long denyCacheSize() {
		return 0;
	}

}
