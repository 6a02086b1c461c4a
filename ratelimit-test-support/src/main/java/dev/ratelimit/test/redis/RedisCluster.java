package dev.ratelimit.test.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.lettuce.core.RedisException;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import org.awaitility.core.ConditionTimeoutException;

import static org.awaitility.Awaitility.await;

/**
 * A local Redis Cluster of {@code masters × (1 + replicasPerMaster)} {@link RedisServerProcess}es,
 * formed without {@code redis-cli}: slots are assigned with {@code CLUSTER ADDSLOTS} (Redis 6.2
 * compatible, unlike {@code ADDSLOTSRANGE}), nodes join with {@code CLUSTER MEET} and replicas
 * attach with {@code CLUSTER REPLICATE}.
 *
 * <p>Node settings: {@code --cluster-node-timeout 2000} so a killed master is failed over within a
 * few seconds, and {@code --cluster-replica-validity-factor 0} so a replica always considers itself
 * eligible for promotion, even if its link to the master was down for a while (e.g. right after a
 * previous failure test). {@code cluster-require-full-coverage} keeps its default ({@code yes}):
 * while a killed master has not been replaced the cluster reports {@code CLUSTERDOWN}, as in
 * production, unless started with {@code requireFullCoverage} {@code false}. {@code --repl-diskless-sync-delay 0} lets replicas sync at once instead of after the
 * default 5 s (Redis 7 syncs disk-less by default).
 *
 * <p>Roles change on failover, so {@link #masters()}, {@link #replicas()} and
 * {@link #masterForSlot(int)} query the live cluster; {@link #nodes()} is the fixed list of processes.
 */
public final class RedisCluster implements AutoCloseable {

	/** Default timeout of {@link #awaitHealthy()}. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

	private static final List<String> NODE_ARGS = List.of("--cluster-enabled", "yes",
			"--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
			"--cluster-replica-validity-factor", "0", "--repl-diskless-sync-delay", "0");

	private final List<RedisServerProcess> nodes;

	private final List<String> nodeIds = new ArrayList<>();

	private final int masterCount;

	private RedisCluster(List<RedisServerProcess> nodes, int masterCount) {
		this.nodes = List.copyOf(nodes);
		this.masterCount = masterCount;
	}

	/** Starts 3 masters with 1 replica each using {@link RedisBinary#locate()}. */
	public static RedisCluster start() {
		return start(RedisBinary.locate(), 3, 1);
	}

	/**
	 * Starts and forms a cluster, returning once it is {@link #awaitHealthy() healthy}.
	 *
	 * @param binary            the {@code redis-server} to run (6.2 or later)
	 * @param masters           number of masters; slots are split evenly between them (at least 1)
	 * @param replicasPerMaster replicas per master (at least 0)
	 */
	public static RedisCluster start(RedisBinary binary, int masters, int replicasPerMaster) {
		return start(binary, masters, replicasPerMaster, true);
	}

	/**
	 * Starts and forms a cluster, returning once it is {@link #awaitHealthy() healthy}.
	 *
	 * @param binary              the {@code redis-server} to run (6.2 or later)
	 * @param masters             number of masters; slots are split evenly between them (at least 1)
	 * @param replicasPerMaster   replicas per master (at least 0)
	 * @param requireFullCoverage the nodes' {@code cluster-require-full-coverage}: with {@code true} (Redis's
	 *                            default) every node answers {@code CLUSTERDOWN} while a master is marked failed and
	 *                            not yet replaced; with {@code false} the other masters keep serving their slots
	 */
	public static RedisCluster start(RedisBinary binary, int masters, int replicasPerMaster,
			boolean requireFullCoverage) {
		if (masters < 1 || replicasPerMaster < 0) {
			throw new IllegalArgumentException("masters must be >= 1 and replicasPerMaster >= 0");
		}
		List<RedisServerProcess> started = new ArrayList<>();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				List<String> args = new ArrayList<>(NODE_ARGS);
				args.addAll(List.of("--cluster-require-full-coverage", requireFullCoverage ? "yes" : "no"));
				started.add(RedisServerProcess.start(binary, args));
			}
			RedisCluster cluster = new RedisCluster(started, masters);
			cluster.form(replicasPerMaster);
			return cluster;
		}
		catch (RuntimeException ex) {
			started.forEach(RedisServerProcess::close);
			throw ex;
		}
	}

	private void form(int replicasPerMaster) {
		for (int i = 0; i < nodes.size(); i++) {
			int epoch = i + 1;
			nodeIds.add(admin(nodes.get(i), redis -> {
				redis.clusterSetConfigEpoch(epoch); // distinct epochs, as redis-cli --cluster create does
				return redis.clusterMyId();
			}));
		}
		for (int m = 0; m < masterCount; m++) {
			int[] slots = IntStream.range(m * SlotHash.SLOT_COUNT / masterCount,
					(m + 1) * SlotHash.SLOT_COUNT / masterCount).toArray();
			admin(nodes.get(m), redis -> redis.clusterAddSlots(slots));
		}
		RedisServerProcess first = nodes.get(0);
		nodes.stream().skip(1).forEach(node -> admin(node, redis -> redis.clusterMeet(first.host(), first.port())));
		// A replica can only REPLICATE a master it already knows of through gossip, hence the retries.
		for (int i = masterCount; i < nodes.size(); i++) {
			RedisServerProcess replica = nodes.get(i);
			String masterId = nodeIds.get((i - masterCount) / replicasPerMaster);
			awaitCondition("CLUSTER REPLICATE " + masterId + " on " + replica, DEFAULT_TIMEOUT, () -> {
				try {
					admin(replica, redis -> redis.clusterReplicate(masterId));
					return null;
				}
				catch (RedisException ex) {
					return ex.getMessage();
				}
			});
		}
		awaitHealthy();
	}

	/** All processes of the cluster, running or not, in creation order (initial masters first). */
	public List<RedisServerProcess> nodes() {
		return nodes;
	}

	/** Running nodes that currently consider themselves masters serving slots. */
	public List<RedisServerProcess> masters() {
		return runningNodesWhere(self -> self.getRole().isUpstream() && !self.hasNoSlots());
	}

	/** Running nodes that currently consider themselves replicas. */
	public List<RedisServerProcess> replicas() {
		return runningNodesWhere(self -> self.getRole().isReplica());
	}

	/** Running replicas of {@code master}. */
	public List<RedisServerProcess> replicasOf(RedisServerProcess master) {
		String masterId = nodeId(master);
		return runningNodesWhere(self -> masterId.equals(self.getSlaveOf()));
	}

	/** The node id of a process of this cluster (stable across restarts). */
	public String nodeId(RedisServerProcess node) {
		int index = nodes.indexOf(node);
		if (index < 0) {
			throw new IllegalArgumentException(node + " is not part of this cluster");
		}
		return nodeIds.get(index);
	}

	/** All nodes' URIs, usable as cluster client seeds. */
	public List<String> seedUris() {
		return endpoint().seedUris();
	}

	/** This cluster as a (non-external) {@link RedisClusterEndpoint} whose seeds are all nodes. */
	public RedisClusterEndpoint endpoint() {
		return new RedisClusterEndpoint(nodes.stream().map(RedisServerProcess::endpoint).toList(), false);
	}

	/**
	 * The node owning {@code slot} according to the first running node's view of the cluster (right
	 * after a master is killed this is still the killed master, until its replica takes over).
	 */
	public RedisServerProcess masterForSlot(int slot) {
		for (RedisServerProcess node : nodes) {
			if (node.isRunning()) {
				RedisClusterNode owner = RedisAdmin.clusterNodes(node.uri()).getPartitionBySlot(slot);
				if (owner == null) {
					throw new IllegalStateException("Slot " + slot + " is not assigned according to " + node);
				}
				int index = nodeIds.indexOf(owner.getNodeId());
				if (index < 0) {
					throw new IllegalStateException("Slot " + slot + " is owned by unknown node " + owner);
				}
				return nodes.get(index);
			}
		}
		throw new IllegalStateException("No node of the cluster is running");
	}

	/** The node owning the slot of {@code key}, see {@link #masterForSlot(int)}. */
	public RedisServerProcess masterForKey(String key) {
		return masterForSlot(SlotHash.getSlot(key));
	}

	/** Kills (SIGKILL) the master owning {@code key} and returns it, e.g. to {@link RedisServerProcess#restart()} it later. */
	public RedisServerProcess killMasterForKey(String key) {
		RedisServerProcess master = masterForKey(key);
		master.kill();
		return master;
	}

	/** Whether at least one node is not running. */
	public boolean hasStoppedNodes() {
		return nodes.stream().anyMatch(node -> !node.isRunning());
	}

	/**
	 * Restarts every node that is not running (a former master comes back as a replica of the node
	 * that replaced it) and waits until the cluster is healthy again.
	 */
	public void restartStoppedNodes() {
		nodes.stream().filter(node -> !node.isRunning()).forEach(RedisServerProcess::restart);
		awaitHealthy();
	}

	/** FLUSHALL on every master. */
	public void flushAll() {
		endpoint().flushAll();
	}

	/** {@link #awaitHealthy(Duration)} with {@link #DEFAULT_TIMEOUT}. */
	public void awaitHealthy() {
		awaitHealthy(DEFAULT_TIMEOUT);
	}

	/**
	 * Waits until every <em>running</em> node reports {@code cluster_state:ok} with all 16384 slots
	 * ok, sees every other running node as connected and not failing, agrees with the others on
	 * which node owns which slot, and (for replicas) has {@code master_link_status:up}. When all
	 * nodes run, the number of masters must also be back to the configured one. Usable after a
	 * failover (with the old master still dead) and after {@link #restartStoppedNodes()}.
	 *
	 * @throws IllegalStateException on timeout, describing the last problem seen
	 */
	public void awaitHealthy(Duration timeout) {
		awaitCondition("a healthy cluster", timeout, this::healthProblem);
	}

	/** Stops all nodes and deletes their directories. */
	@Override
	public void close() {
		nodes.forEach(RedisServerProcess::close);
	}

	@Override
	public String toString() {
		return "RedisCluster" + nodes;
	}

	/** Returns a description of why the cluster is not healthy, or {@code null} if it is. */
	private String healthProblem() {
		List<RedisServerProcess> running = nodes.stream().filter(RedisServerProcess::isRunning).toList();
		Map<String, List<Integer>> agreedSlots = null;
		try {
			for (RedisServerProcess node : running) {
				String info = admin(node, RedisCommands::clusterInfo);
				if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:16384")) {
					return node + " reports: " + info.lines().limit(6).collect(Collectors.joining(" "));
				}
				Partitions view = RedisAdmin.clusterNodes(node.uri());
				for (RedisServerProcess other : running) {
					RedisClusterNode seen = view.getPartitionByNodeId(nodeId(other));
					if (seen == null || !(seen.is(NodeFlag.MYSELF) || seen.isConnected()) || seen.is(NodeFlag.FAIL)
							|| seen.is(NodeFlag.EVENTUAL_FAIL) || seen.is(NodeFlag.HANDSHAKE)) {
						return node + " does not see " + other + " as a healthy member: " + seen;
					}
				}
				Map<String, List<Integer>> slots = new TreeMap<>();
				view.forEach(n -> {
					if (n.getRole().isUpstream() && !n.hasNoSlots()) {
						slots.put(n.getNodeId(), n.getSlots());
					}
				});
				if (agreedSlots != null && !agreedSlots.equals(slots)) {
					return node + " disagrees on slot owners: " + slots.keySet() + " vs " + agreedSlots.keySet();
				}
				agreedSlots = slots;
				RedisClusterNode self = view.getPartitionByNodeId(nodeId(node));
				if (self.getRole().isReplica()
						&& !admin(node, redis -> redis.info("replication")).contains("master_link_status:up")) {
					return node + " is a replica without master link";
				}
			}
		}
		catch (RedisException ex) {
			return ex.toString();
		}
		if (running.isEmpty()) {
			return "no node is running";
		}
		if (running.size() == nodes.size() && agreedSlots.size() != masterCount) {
			return "expected " + masterCount + " masters but found " + agreedSlots.keySet();
		}
		return null;
	}

	private List<RedisServerProcess> runningNodesWhere(Predicate<RedisClusterNode> selfMatches) {
		return nodes.stream().filter(RedisServerProcess::isRunning).filter(node -> {
			RedisClusterNode self = RedisAdmin.clusterNodes(node.uri()).getPartitionByNodeId(nodeId(node));
			return self != null && selfMatches.test(self);
		}).toList();
	}

	private static <T> T admin(RedisServerProcess node, Function<RedisCommands<String, String>, T> action) {
		return RedisAdmin.call(node.uri(), action);
	}

	/** Polls {@code problem} (null = done) every 100 ms until it returns null or {@code timeout} elapses. */
	private static void awaitCondition(String what, Duration timeout, Supplier<String> problem) {
		AtomicReference<String> last = new AtomicReference<>();
		try {
			await().atMost(timeout).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(100)).until(() -> {
				last.set(problem.get());
				return last.get() == null;
			});
		}
		catch (ConditionTimeoutException ex) {
			throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what
					+ "; last problem: " + last.get(), ex);
		}
	}
}
