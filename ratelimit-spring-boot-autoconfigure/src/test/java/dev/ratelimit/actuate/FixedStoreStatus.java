package dev.ratelimit.actuate;

import java.util.Map;

import dev.ratelimit.StoreState;
import dev.ratelimit.resilience.StoreNodeStatus;
import dev.ratelimit.resilience.StoreStatus;
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

	@Override
	public long denyCacheSize() {
		return 0;
	}

}
