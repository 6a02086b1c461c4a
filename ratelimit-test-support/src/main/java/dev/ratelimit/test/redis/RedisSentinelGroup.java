package dev.ratelimit.test.redis;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.sentinel.api.StatefulRedisSentinelConnection;

import static org.awaitility.Awaitility.await;

/**
 * A Redis master with one replica and three Sentinels monitoring them as {@value #MASTER} (quorum 2), each a
 * {@link RedisServerProcess} on a free port. The Sentinels consider a master down after 1 s without an answer, so a
 * killed master is replaced within a few seconds. {@link #start()} returns once the replica is in sync and every
 * Sentinel knows the replica and the two other Sentinels.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	/** The name under which the Sentinels monitor the master. */
	public static final String MASTER = "mymaster";

	private static final Duration SETTLE = Duration.ofSeconds(30);

	private final List<RedisServerProcess> servers = new ArrayList<>();

	private final List<RedisServerProcess> sentinels = new ArrayList<>();

	private RedisSentinelGroup() {
	}

	/** Starts the master, the replica and the Sentinels, and waits until they know each other. */
	public static RedisSentinelGroup start() {
		RedisSentinelGroup group = new RedisSentinelGroup();
		try {
			group.launch();
			return group;
		}
		catch (RuntimeException ex) {
			group.close();
			throw ex;
		}
	}

	private void launch() {
		RedisServerProcess master = RedisServerProcess.start();
		this.servers.add(master);
		RedisServerProcess replica = RedisServerProcess.start("--replicaof", RedisServerProcess.HOST,
				String.valueOf(master.port()));
		this.servers.add(replica);
		await().atMost(SETTLE).pollInterval(Duration.ofMillis(50))
			.until(() -> info(replica, "replication").contains("master_link_status:up"));
		for (int i = 0; i < 3; i++) {
			this.sentinels.add(RedisServerProcess.startSentinel(List.of(
					"sentinel monitor " + MASTER + " " + RedisServerProcess.HOST + " " + master.port() + " 2",
					"sentinel down-after-milliseconds " + MASTER + " 1000",
					"sentinel failover-timeout " + MASTER + " 5000",
					"sentinel parallel-syncs " + MASTER + " 1")));
		}
		await().atMost(SETTLE).pollInterval(Duration.ofMillis(100)).until(() -> this.sentinels.stream()
			.allMatch((sentinel) -> {
				Map<String, String> state = sentinel(sentinel, (commands) -> commands.sync().master(MASTER));
				return "2".equals(state.get("num-other-sentinels")) && "1".equals(state.get("num-slaves"));
			}));
	}

	/** Returns the Sentinels' addresses, {@code host:port}, as {@code spring.data.redis.sentinel.nodes} takes them. */
	public List<String> sentinelNodes() {
		return this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList();
	}

	/** Returns the server that was the master at start. */
	public RedisServerProcess initialMaster() {
		return this.servers.get(0);
	}

	/** Returns the server that was the replica at start. */
	public RedisServerProcess initialReplica() {
		return this.servers.get(1);
	}

	/** Returns the port of the master as the first Sentinel that answers sees it. */
	public int masterPort() {
		for (RedisServerProcess sentinel : this.sentinels) {
			try {
				return ((InetSocketAddress) sentinel(sentinel,
						(commands) -> commands.sync().getMasterAddrByName(MASTER))).getPort();
			}
			catch (RuntimeException ex) {
				// try the next one
			}
		}
		throw new IllegalStateException("No Sentinel answers");
	}

	/** Returns a section of {@code INFO} of a server, or {@code ""} when it does not answer. */
	public static String info(RedisServerProcess server, String section) {
		RedisClient client = RedisClient.create(RedisURI.create(server.uri()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().info(section);
		}
		catch (RuntimeException ex) {
			return "";
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
		}
	}

	private static <T> T sentinel(RedisServerProcess sentinel,
			Function<StatefulRedisSentinelConnection<String, String>, T> command) {
		RedisClient client = RedisClient.create();
		try (StatefulRedisSentinelConnection<String, String> connection = client
			.connectSentinel(RedisURI.create(sentinel.uri()))) {
			return command.apply(connection);
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(1));
		}
	}

	/** Stops the Sentinels, then the servers. */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServerProcess::close);
		this.servers.forEach(RedisServerProcess::close);
	}

}
