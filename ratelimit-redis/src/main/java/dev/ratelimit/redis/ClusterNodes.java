package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.store.StoreNodes;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;

/**
 * The masters of a Redis Cluster as the store's connection sees them now (Lettuce's {@link Partitions}, which its
 * topology refresh updates on failover): a request's checks are mapped to the masters serving their hash slots at
 * call time.
 */
final class ClusterNodes implements StoreNodes {

	/** The id of a slot that no known master serves (the topology is not known yet). */
	static final String UNASSIGNED = "unassigned";

	private static final String CLUSTER_DOWN = "CLUSTERDOWN";

	private final Supplier<Partitions> partitions;

	private final Function<RateLimitCheck, String> key;

	/**
	 * @param partitions the connection's current view of the cluster
	 * @param key the Redis key of a check
	 */
	ClusterNodes(Supplier<Partitions> partitions, Function<RateLimitCheck, String> key) {
		this.partitions = partitions;
		this.key = key;
	}

	@Override
	public List<String> nodesOf(List<RateLimitCheck> checks) {
		Partitions view = this.partitions.get();
		if (checks.size() == 1) {
			return List.of(ownerOf(view, slot(checks.get(0))));
		}
		Set<String> nodes = new LinkedHashSet<>(2);
		for (RateLimitCheck check : checks) {
			nodes.add(ownerOf(view, slot(check)));
		}
		return List.copyOf(nodes);
	}

	@Override
	public Map<String, String> serving() {
		Map<String, String> nodes = new LinkedHashMap<>();
		for (RedisClusterNode node : this.partitions.get()) {
			if (node.getRole().isUpstream() && !node.hasNoSlots()) {
				nodes.put(node.getNodeId(), describe(node));
			}
		}
		return nodes;
	}

	@Override
	public Set<String> blame(Throwable failure, List<String> touched) {
		for (Throwable each = failure; each != null; each = (each.getCause() != each) ? each.getCause() : null) {
			if (each.getMessage() != null && each.getMessage().startsWith(CLUSTER_DOWN)) {
				// a node that answers is healthy: it refuses while the cluster misses another node's slots
				return Set.of();
			}
		}
		for (Throwable each = failure; each != null; each = (each.getCause() != each) ? each.getCause() : null) {
			if (each instanceof ClusterSlotException slotFailure) {
				String owner = ownerOf(this.partitions.get(), slotFailure.slot());
				if (touched.contains(owner)) {
					return Set.of(owner);
				}
			}
		}
		return Set.copyOf(touched);
	}

	private int slot(RateLimitCheck check) {
		return SlotHash.getSlot(this.key.apply(check).getBytes(StandardCharsets.UTF_8));
	}

	private static String ownerOf(Partitions view, int slot) {
		RedisClusterNode owner = view.getPartitionBySlot(slot);
		return (owner != null) ? owner.getNodeId() : UNASSIGNED;
	}

	/** Describes a master by its address and its slot ranges, e.g. {@code 127.0.0.1:7001 slots 0-5460}. */
	static String describe(RedisClusterNode node) {
		RedisURI uri = node.getUri();
		String address = (uri != null) ? uri.getHost() + ":" + uri.getPort() : node.getNodeId();
		return address + " slots " + ranges(node.getSlots());
	}

	private static String ranges(List<Integer> slots) {
		List<String> ranges = new ArrayList<>();
		int start = -1;
		int previous = -2;
		for (int slot : slots.stream().sorted().toList()) {
			if (slot != previous + 1) {
				if (start >= 0) {
					ranges.add(range(start, previous));
				}
				start = slot;
			}
			previous = slot;
		}
		if (start >= 0) {
			ranges.add(range(start, previous));
		}
		return String.join(",", ranges);
	}

	private static String range(int first, int last) {
		return (first == last) ? String.valueOf(first) : first + "-" + last;
	}

}
