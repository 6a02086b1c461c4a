package dev.ratelimit.resilience;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breakers in front of the shared store: one for a store on one server (standalone Redis, Sentinel), one
 * per node for a store whose nodes fail independently (a master of a Redis Cluster, see {@link StoreNodes}), so that
 * one master's failure sends only the requests that touch its keys to the fallback.
 * <p>
 * A request's keys are mapped to the nodes that serve them at call time. A node's breaker is created when a request
 * first touches it and kept by its node id; when a replica takes over a failed master's slots, the replica has its
 * own id and starts closed, and the failed master, which serves nothing any more, is retired (its breaker dropped
 * from the registry; if it was open, its keys are reported as decided by the store again).
 * <p>
 * Who decides for the whole store ({@link #state()}) is {@link StoreState#REDIS} while every breaker is closed,
 * {@link StoreState#FALLBACK} while all serving nodes' breakers are open, and {@link StoreState#PARTIAL} in between.
 * Each node's changes are logged (throttled per node by {@link StoreStateLog}) and published as
 * {@link RateLimitListener#onStoreNodeStateChange}; changes of the whole store's state as
 * {@link RateLimitListener#onStoreStateChange}.
 */
final class StoreGuards {

	/** The node of requests whose nodes could not be told (no connection to the cluster yet). */
	static final String UNKNOWN_NODE = "unknown";

	private static final Log logger = LogFactory.getLog(StoreGuards.class);

	private final @Nullable StoreNodes nodes;

	private final @Nullable NodeGuard single;

	/** The guards of every request to a store on one server: its one guard. */
	private final List<NodeGuard> singleGuards;

	private final Function<String, CircuitBreaker> newBreaker;

	private final Consumer<CircuitBreaker> dropBreaker;

	private final StoreStateLog log;

	private final RateLimitListener listener;

	private final Map<String, NodeGuard> byNode = new ConcurrentHashMap<>();

	/** Who decides for the whole store, as last published. */
	private StoreState published = StoreState.REDIS;

	/**
	 * Guards a store on one server with one breaker.
	 * @param circuitBreaker the breaker
	 * @param log the log of state changes
	 * @param listener told of every change of who decides
	 */
	StoreGuards(CircuitBreaker circuitBreaker, StoreStateLog log, RateLimitListener listener) {
		this.nodes = null;
		this.newBreaker = (node) -> circuitBreaker;
		this.dropBreaker = (breaker) -> {
		};
		this.log = log;
		this.listener = listener;
		this.single = new NodeGuard("", "", circuitBreaker, this::changed);
		this.singleGuards = List.of(this.single);
	}

	/**
	 * Guards a store whose nodes fail independently with a breaker per node.
	 * @param nodes the store's nodes
	 * @param newBreaker creates the breaker of a node, by node id
	 * @param dropBreaker forgets the breaker of a node that serves no keys any more
	 * @param log the log of state changes
	 * @param listener told of every change of who decides
	 */
	StoreGuards(StoreNodes nodes, Function<String, CircuitBreaker> newBreaker, Consumer<CircuitBreaker> dropBreaker,
			StoreStateLog log, RateLimitListener listener) {
		this.nodes = nodes;
		this.single = null;
		this.singleGuards = List.of();
		this.newBreaker = newBreaker;
		this.dropBreaker = dropBreaker;
		this.log = log;
		this.listener = listener;
	}

	/** Returns the guards of the nodes that serve the checks' keys now, at least one. */
	List<NodeGuard> guardsFor(List<RateLimitCheck> checks) {
		if (this.single != null) {
			return this.singleGuards;
		}
		List<String> ids;
		try {
			ids = this.nodes.nodesOf(checks);
		}
		catch (RuntimeException ex) {
			ids = List.of(UNKNOWN_NODE);
		}
		if (ids.size() == 1) {
			return List.of(guard(ids.get(0)));
		}
		List<NodeGuard> guards = new ArrayList<>(ids.size());
		for (String id : ids) {
			guards.add(guard(id));
		}
		return guards;
	}

	/**
	 * Returns the guards a failed call is blamed on, among those it was sent through (see {@link StoreNodes#blame}):
	 * their breakers record the failure, the others' give their permission back.
	 */
	Set<NodeGuard> blame(Throwable failure, List<NodeGuard> guards) {
		if (this.nodes == null) {
			return Set.copyOf(guards);
		}
		Set<String> blamed = this.nodes.blame(failure, guards.stream().map(NodeGuard::node).toList());
		return Set.copyOf(guards.stream().filter((guard) -> blamed.contains(guard.node())).toList());
	}

	/** Returns whether every node that serves these checks' keys decides now (its breaker is closed). */
	boolean closed(List<RateLimitCheck> checks) {
		for (NodeGuard guard : guardsFor(checks)) {
			if (guard.circuitBreaker().getState() != CircuitBreaker.State.CLOSED) {
				return false;
			}
		}
		return true;
	}

	private NodeGuard guard(String node) {
		NodeGuard guard = this.byNode.get(node);
		return (guard != null) ? guard : created(node);
	}

	private synchronized NodeGuard created(String node) {
		NodeGuard guard = this.byNode.get(node);
		if (guard != null) {
			return guard;
		}
		String description = serving().getOrDefault(node, node);
		guard = new NodeGuard(node, description + " (id " + node + ")", this.newBreaker.apply(node), this::changed);
		this.byNode.put(node, guard);
		// a new node serves keys: a replica may have taken over the slots of a failed master
		retireStale();
		return guard;
	}

	/** Retires the guards of nodes that serve no keys any more (a failed master whose replica took over). */
	private synchronized void retireStale() {
		Map<String, String> serving = serving();
		if (serving.isEmpty()) {
			return;
		}
		for (NodeGuard guard : List.copyOf(this.byNode.values())) {
			if (!serving.containsKey(guard.node())) {
				this.byNode.remove(guard.node());
				guard.retire();
				this.dropBreaker.accept(guard.circuitBreaker());
				if (guard.state() == StoreState.FALLBACK) {
					nodeChanged(guard, StoreState.FALLBACK, StoreState.REDIS, null);
				}
			}
		}
		publish(null);
	}

	private Map<String, String> serving() {
		try {
			return this.nodes.serving();
		}
		catch (RuntimeException ex) {
			return Map.of();
		}
	}

	/** Returns who decides for the whole store now. */
	StoreState state() {
		if (this.single != null) {
			return this.single.state();
		}
		retireStale();
		return overall();
	}

	private StoreState overall() {
		int unavailable = 0;
		for (NodeGuard guard : this.byNode.values()) {
			if (guard.state() == StoreState.FALLBACK) {
				unavailable++;
			}
		}
		if (unavailable == 0) {
			return StoreState.REDIS;
		}
		return (unavailable >= Math.max(serving().size(), this.byNode.size())) ? StoreState.FALLBACK
				: StoreState.PARTIAL;
	}

	/** Returns the state of the least available breaker: open before half open before closed. */
	CircuitBreaker.State circuitState() {
		if (this.single != null) {
			return this.single.circuitBreaker().getState();
		}
		CircuitBreaker.State worst = CircuitBreaker.State.CLOSED;
		for (NodeGuard guard : this.byNode.values()) {
			CircuitBreaker.State state = guard.circuitBreaker().getState();
			if (rank(state) > rank(worst)) {
				worst = state;
			}
		}
		return worst;
	}

	private static int rank(CircuitBreaker.State state) {
		return switch (state) {
			case CLOSED, DISABLED, METRICS_ONLY -> 0;
			case HALF_OPEN -> 1;
			case OPEN, FORCED_OPEN -> 2;
		};
	}

	/** Returns each node's status, by node id: empty for a store on one server. */
	Map<String, StoreNodeStatus> nodeStatus() {
		if (this.single != null) {
			return Map.of();
		}
		retireStale();
		Map<String, StoreNodeStatus> status = new LinkedHashMap<>();
		serving().forEach((node, description) -> {
			NodeGuard guard = this.byNode.get(node);
			CircuitBreaker.State circuit = (guard != null) ? guard.circuitBreaker().getState()
					: CircuitBreaker.State.CLOSED;
			status.put(node, new StoreNodeStatus(description, NodeGuard.of(circuit), circuit));
		});
		return status;
	}

	/** Returns each node's breaker, by node id: the one breaker under {@code ""} for a store on one server. */
	Map<String, CircuitBreaker> circuitBreakers() {
		if (this.single != null) {
			return Map.of("", this.single.circuitBreaker());
		}
		Map<String, CircuitBreaker> breakers = new LinkedHashMap<>();
		this.byNode.forEach((node, guard) -> breakers.put(node, guard.circuitBreaker()));
		return breakers;
	}

	/** Returns the breaker of a store on one server, or {@code null} in a Cluster. */
	@Nullable CircuitBreaker singleBreaker() {
		return (this.single != null) ? this.single.circuitBreaker() : null;
	}

	private void changed(NodeGuard guard, StoreState previous, StoreState current, @Nullable Throwable cause) {
		if (this.single != null) {
			this.log.onStoreStateChange(previous, current, cause);
			tell(() -> this.listener.onStoreStateChange(previous, current, cause), previous, current);
			return;
		}
		nodeChanged(guard, previous, current, cause);
		publish(cause);
	}

	private void nodeChanged(NodeGuard guard, StoreState previous, StoreState current, @Nullable Throwable cause) {
		this.log.nodeChanged(guard.description(), previous, current, cause);
		tell(() -> this.listener.onStoreNodeStateChange(guard.node(), previous, current, cause), previous, current);
	}

	/** Publishes a change of who decides for the whole store, if any. */
	private synchronized void publish(@Nullable Throwable cause) {
		StoreState now = overall();
		StoreState previous = this.published;
		if (now == previous) {
			return;
		}
		this.published = now;
		tell(() -> this.listener.onStoreStateChange(previous, now, (now == StoreState.REDIS) ? null : cause),
				previous, now);
	}

	private static void tell(Runnable listener, StoreState previous, StoreState current) {
		try {
			listener.run();
		}
		catch (RuntimeException ex) {
			// the breaker calls this inside a request's or the probe's call: a listener must not fail it
			logger.warn("A rate limit listener failed on a store state change from " + previous + " to " + current,
					ex);
		}
	}

}
