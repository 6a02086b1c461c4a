package dev.ratelimit.test.redis;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;

import static dev.ratelimit.test.redis.RedisStandaloneIntegrationTests.withRedis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@RedisClusterTest
class RedisClusterIntegrationTests {

	/** Keys whose slots (3300, 7365, 15495) fall into the three thirds of the slot space. */
	private static final List<String> KEYS_IN_DIFFERENT_SLOTS = List.of("b", "c", "a");

	@Test
	@DisabledIfEnvironmentVariable(named = RedisClusterExtension.REDIS_CLUSTER_NODES_ENV, matches = ".+")
	void formsThreeMastersWithOneReplicaEach(RedisCluster cluster) {
		assertThat(cluster.nodes()).hasSize(6);
		assertThat(cluster.masters()).hasSize(3);
		assertThat(cluster.replicas()).hasSize(3);
		cluster.masters().forEach(master -> assertThat(cluster.replicasOf(master)).hasSize(1));
		for (RedisServerProcess node : cluster.nodes()) {
			String info = withRedis(node.uri(), commands -> commands.clusterInfo());
			assertThat(info).contains("cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:6");
		}
		assertThat(cluster.seedUris()).hasSize(6).allMatch(uri -> uri.startsWith("redis://127.0.0.1:"));
	}

	@Test
	void clusterClientWritesAndReadsKeysInDifferentSlots(RedisClusterEndpoint endpoint) {
		endpoint.flushAll();
		assertThat(KEYS_IN_DIFFERENT_SLOTS.stream().map(key -> SlotHash.getSlot(key) * 3 / SlotHash.SLOT_COUNT))
				.containsExactly(0, 1, 2);

		Map<String, String> values = withCluster(endpoint, commands -> {
			KEYS_IN_DIFFERENT_SLOTS.forEach(key -> commands.set(key, "value-" + key));
			return KEYS_IN_DIFFERENT_SLOTS.stream().collect(Collectors.toMap(key -> key, commands::get));
		});

		assertThat(values).containsOnly(Map.entry("a", "value-a"), Map.entry("b", "value-b"), Map.entry("c", "value-c"));
	}

	@Test
	@DisabledIfEnvironmentVariable(named = RedisClusterExtension.REDIS_CLUSTER_NODES_ENV, matches = ".+")
	void killedMasterIsReplacedByItsReplica(RedisCluster cluster) {
		String key = "failover-key";
		RedisServerProcess master = cluster.masterForKey(key);
		assertThat(cluster.replicasOf(master)).hasSize(1);
		RedisServerProcess replica = cluster.replicasOf(master).get(0);
		long acknowledgedBy = withRedis(master.uri(), commands -> {
			commands.set(key, "survives");
			return commands.waitForReplication(1, 5000);
		});
		assertThat(acknowledgedBy).isEqualTo(1);

		master.kill();

		await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(200))
				.ignoreExceptionsInstanceOf(RedisException.class)
				.untilAsserted(() -> assertThat(cluster.masterForKey(key)).isSameAs(replica));
		cluster.awaitHealthy(Duration.ofSeconds(10));
		String value = withRedis(replica.uri(), commands -> commands.get(key));
		assertThat(value).isEqualTo("survives");

		master.restart();
		cluster.awaitHealthy(Duration.ofSeconds(15));

		assertThat(cluster.replicasOf(replica)).containsExactly(master);
		assertThat(cluster.masters()).hasSize(3).contains(replica).doesNotContain(master);
	}

	static <T> T withCluster(RedisClusterEndpoint endpoint, Function<RedisAdvancedClusterCommands<String, String>, T> action) {
		RedisClusterClient client = RedisClusterClient.create(endpoint.seedUris().stream().map(RedisURI::create).toList());
		try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
			return action.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}
}
