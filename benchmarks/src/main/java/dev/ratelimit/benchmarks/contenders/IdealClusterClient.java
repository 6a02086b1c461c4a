package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.util.List;

import dev.ratelimit.test.redis.RedisClusterEndpoint;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The {@linkplain IdealClient ideal client} on a Redis Cluster: one {@code EVALSHA} of the minimal GCRA script per
 * decision on one Lettuce cluster connection, which sends each call to the master of its key's slot (one connection
 * per master, auto-flushing, so the threads' calls to one master pipeline on it). The reference of the cost model's
 * Cluster rows ({@code benchmarks/run.sh model}): what one call per decision costs the masters when nothing batches.
 * One rule only: the minimal script's keys of several rules would lie in several slots.
 */
public final class IdealClusterClient implements Contender {

	private final RedisClusterClient client;

	private final StatefulRedisClusterConnection<byte[], byte[]> connection;

	private final RedisAdvancedClusterAsyncCommands<byte[], byte[]> commands;

	private final String sha;

	/** @param cluster the cluster's seed nodes */
	public IdealClusterClient(RedisClusterEndpoint cluster) {
		this.client = RedisClusterClient.create(cluster.seedUris().stream().map(RedisURI::create).toList());
		this.connection = this.client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		byte[] script = Scripts.load(Scripts.MINIMAL_GCRA);
		String sha = null;
		for (RedisClusterNode node : this.connection.getPartitions()) {
			if (node.getRole().isUpstream()) {
				sha = this.connection.getConnection(node.getNodeId()).sync().scriptLoad(script);
			}
		}
		if (sha == null) {
			throw new IllegalStateException("No master in the cluster's partitions");
		}
		this.sha = sha;
	}

	@Override
	public Description description() {
		return new Description("ideal-cluster", "ideal client on a Redis Cluster (minimal GCRA script)",
				"ideal on a cluster", Role.DIAGNOSTIC, "as *ideal client*, on a Redis Cluster of three masters (no "
						+ "replicas) on this machine: one call per decision, routed to the master of its key's slot");
	}

	@Override
	public String method(int rules) {
		return "1 EVALSHA of gcra-minimal.lua, routed by its key's slot";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		if (rules.size() != 1) {
			throw new IllegalArgumentException("The ideal client on a cluster checks one rule (its keys of several "
					+ "rules would lie in several slots)");
		}
		Rule rule = rules.get(0);
		byte[][][] keys = new byte[subjects.length][1][];
		for (int s = 0; s < subjects.length; s++) {
			keys[s][0] = ("ideal:{" + rule.name() + ":" + subjects[s] + "}").getBytes(StandardCharsets.UTF_8);
		}
		byte[] interval = IdealClient.ascii(rule.intervalMicros());
		byte[] burst = IdealClient.ascii(rule.perSecond());
		return (subject) -> Blocking.await(this.commands.<Long>evalsha(this.sha, ScriptOutputType.INTEGER,
				keys[subject], interval, burst)) == 1L;
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
	}

}
