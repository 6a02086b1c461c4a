package dev.ratelimit.store;

import dev.ratelimit.RateLimitCheck;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The nodes of a shared store whose keys live on several servers that fail independently (the masters of a Redis
 * Cluster), so that a limiter can isolate the failure of one of them: its circuit breaker, fallback and health work
 * per node. A store on one server (standalone Redis, Sentinel) has none ({@link RateLimitStore#nodes()} is
 * {@code null}).
 * <p>
 * A node is named by an id that stays the same for as long as the node serves keys (the Redis node id); which node
 * serves which keys is read at call time and changes on failover, when a replica with another id takes over.
 */
public interface StoreNodes {

	/**
	 * Returns the ids of the nodes that serve the checks' keys now.
	 * @param checks the checks of one request
	 * @return the distinct node ids, at least one
	 */
	List<String> nodesOf(List<RateLimitCheck> checks);

	/**
	 * Returns the nodes that serve keys now, each with its description for health and logs (its address and the
	 * slots it serves).
	 * @return the description of each serving node, by node id
	 */
	Map<String, String> serving();

	/**
	 * Tells which of the nodes a failed call touched the failure is theirs: none when it is not a node's failure
	 * (a Redis Cluster answering {@code CLUSTERDOWN} while another node fails over), the node a failure names, else
	 * all of them (a timeout does not say who did not answer).
	 * @param failure what the call failed with
	 * @param touched the ids of the nodes the call was sent to
	 * @return the ids of the nodes whose failure it is, a subset of {@code touched}
	 */
	Set<String> blame(Throwable failure, List<String> touched);

}
