package dev.ratelimit.test.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;

/**
 * Where a Redis Cluster for tests is reachable.
 *
 * @param seeds    nodes to bootstrap a cluster client from (for a harness-managed cluster: all nodes)
 * @param external {@code true} if the cluster was provided through {@code REDIS_CLUSTER_NODES}
 */
public record RedisClusterEndpoint(List<RedisEndpoint> seeds, boolean external) {

	public RedisClusterEndpoint {
		if (seeds.isEmpty()) {
			throw new IllegalArgumentException("A cluster needs at least one seed node");
		}
		seeds = List.copyOf(seeds);
	}

	/** Parses comma-separated {@code host:port} seeds, e.g. the value of {@code REDIS_CLUSTER_NODES}. */
	public static RedisClusterEndpoint external(String hostPorts) {
		List<RedisEndpoint> seeds = new ArrayList<>();
		for (String seed : hostPorts.split(",")) {
			String hostPort = seed.trim().replaceFirst("^rediss?://", "");
			if (!hostPort.isEmpty()) {
				int colon = hostPort.lastIndexOf(':');
				if (colon <= 0) {
					throw new IllegalArgumentException("Expected host:port but got '" + seed + "' in " + hostPorts);
				}
				String host = hostPort.substring(0, colon);
				int port = Integer.parseInt(hostPort.substring(colon + 1));
				seeds.add(new RedisEndpoint(host, port, "redis://" + host + ":" + port, true));
			}
		}
		return new RedisClusterEndpoint(seeds, true);
	}

	/** Seed URIs such as {@code redis://127.0.0.1:20123}, e.g. for {@code RedisClusterClient.create}. */
	public List<String> seedUris() {
		return seeds.stream().map(RedisEndpoint::uri).collect(Collectors.toList());
	}

	/** Comma-separated {@code host:port} seeds, the format of {@code spring.data.redis.cluster.nodes}. */
	public String nodes() {
		return seeds.stream().map(RedisEndpoint::hostAndPort).collect(Collectors.joining(","));
	}

	/**
	 * FLUSHALL on every master currently serving slots, as listed by the first reachable seed.
	 * Replicas catch up asynchronously.
	 */
	public void flushAll() {
		RedisException lastFailure = null;
		for (RedisEndpoint seed : seeds) {
			try {
				for (RedisClusterNode node : RedisAdmin.clusterNodes(seed.uri())) {
					if (node.getRole().isUpstream() && !node.hasNoSlots()
							&& !node.is(NodeFlag.FAIL) && !node.is(NodeFlag.EVENTUAL_FAIL)) {
						String host = node.getUri().getHost().isEmpty() ? seed.host() : node.getUri().getHost();
						RedisAdmin.call("redis://" + host + ":" + node.getUri().getPort(), RedisCommands::flushall);
					}
				}
				return;
			}
			catch (RedisException ex) {
				lastFailure = ex;
			}
		}
		throw new IllegalStateException("No seed of " + nodes() + " could flush the cluster", lastFailure);
	}
}
