package dev.ratelimit.actuate;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

import dev.ratelimit.redis.RedisMemory;
import dev.ratelimit.region.PeerStatus;
import dev.ratelimit.resilience.StoreNodeStatus;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health of rate limiting. Always UP while decisions can be made: a Redis outage with the fallback deciding is
 * reported in the details ({@code state: fallback}, the circuit state), not as DOWN, because the application still
 * works. In a Redis Cluster, whose masters have a circuit breaker each, the details also show each master
 * ({@code nodes}: its address and slots, who decides for its keys, its circuit) and list the unavailable ones
 * ({@code unavailableNodes}), while the state is {@code partial}. With Redis, the details also show each node's memory (its {@code maxmemory-policy}, {@code used_memory} and
 * {@code maxmemory}, as last read), and {@code reason: out of memory} while Redis refuses the limiter's writes for
 * memory. With {@code scope: global} rules, {@code regions} shows how replication to each other region stands and
 * {@code unreachableRegions} names those it cannot reach: still UP, since each region keeps deciding on what it has.
 */
public class RateLimitHealthIndicator implements HealthIndicator {

	private final StoreStatus status;

	private final String store;

	private final Supplier<List<RedisMemory>> memory;

	private final Supplier<List<PeerStatus>> regions;

	/**
	 * @param status who decides
	 * @param store the store's name as shown
	 */
	public RateLimitHealthIndicator(StoreStatus status, String store) {
		this(status, store, List::of);
	}

	/**
	 * @param status who decides
	 * @param store the store's name as shown
	 * @param memory the last reading of the memory of each Redis node, none without Redis
	 */
	public RateLimitHealthIndicator(StoreStatus status, String store, Supplier<List<RedisMemory>> memory) {
		this(status, store, memory, List::of);
	}

	/**
	 * @param status who decides
	 * @param store the store's name as shown
	 * @param memory the last reading of the memory of each Redis node, none without Redis
	 * @param regions how replication to each other region stands, none without {@code scope: global} rules
	 */
	public RateLimitHealthIndicator(StoreStatus status, String store, Supplier<List<RedisMemory>> memory,
			Supplier<List<PeerStatus>> regions) {
		this.status = status;
		this.store = store;
		this.memory = memory;
		this.regions = regions;
	}

	@Override
	public Health health() {
		Health.Builder health = Health.up()
			.withDetail("store", this.store)
			.withDetail("state", this.status.state().name().toLowerCase(Locale.ROOT));
		CircuitBreaker.State circuit = this.status.circuitState();
		if (circuit != null) {
			health.withDetail("circuit", circuit.name().toLowerCase(Locale.ROOT));
		}
		Map<String, StoreNodeStatus> masters = this.status.nodes();
		if (!masters.isEmpty()) {
			Map<String, Object> nodes = new LinkedHashMap<>();
			masters.forEach((id, node) -> nodes.put(id, nodeDetails(node)));
			health.withDetail("nodes", nodes);
			List<String> unavailable = masters.values().stream()
				.filter((node) -> node.state() != StoreState.REDIS)
				.map(StoreNodeStatus::description)
				.toList();
			if (!unavailable.isEmpty()) {
				health.withDetail("unavailableNodes", unavailable);
			}
		}
		List<RedisMemory> readings = this.memory.get();
		if (!readings.isEmpty()) {
			Map<String, Object> nodes = new LinkedHashMap<>();
			for (RedisMemory node : readings) {
				nodes.put(node.node(), memoryDetails(node));
			}
			health.withDetail("memory", nodes);
			if (readings.stream().anyMatch(RedisMemory::outOfMemory)) {
				health.withDetail("reason", "out of memory");
			}
		}
		List<PeerStatus> peers = this.regions.get();
		if (!peers.isEmpty()) {
			Map<String, Object> regions = new LinkedHashMap<>();
			for (PeerStatus peer : peers) {
				regions.put(peer.region(), peerDetails(peer));
			}
			health.withDetail("regions", regions);
			List<String> unreachable = peers.stream().filter((peer) -> !peer.reachable()).map(PeerStatus::region).toList();
			if (!unreachable.isEmpty()) {
				health.withDetail("unreachableRegions", unreachable);
			}
		}
		return health.build();
	}

	private static Map<String, Object> peerDetails(PeerStatus peer) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("reachable", peer.reachable());
		details.put("pending", peer.pending());
		details.put("lag", peer.lag().toString());
		if (peer.lastFailure() != null) {
			details.put("lastFailure", peer.lastFailure());
		}
		return details;
	}

	private static Map<String, Object> nodeDetails(StoreNodeStatus node) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("node", node.description());
		details.put("state", node.state().name().toLowerCase(Locale.ROOT));
		details.put("circuit", node.circuit().name().toLowerCase(Locale.ROOT));
		return details;
	}

	private static Map<String, Object> memoryDetails(RedisMemory memory) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("maxmemoryPolicy", memory.policy());
		details.put("usedMemory", memory.usedMemory());
		details.put("maxMemory", memory.maxMemory());
		details.put("evictsLimiterKeys", memory.mayEvictLimiterKeys());
		details.put("outOfMemory", memory.outOfMemory());
		return details;
	}

}
