package dev.ratelimit.redis;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import dev.ratelimit.actuate.RedisMemoryMetrics;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisClusterExtension;
import dev.ratelimit.test.redis.RedisClusterTest;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RedisMemoryMonitor} reads {@code INFO memory} of a standalone Redis and of every master of a Cluster, and
 * {@link RedisMemory} tells what a reading means for the limiter's keys.
 */
@RedisClusterTest
class RedisMemoryMonitorIntegrationTests {

	@Test
	void readsEveryMasterOfACluster() {
		RedisCluster cluster = RedisClusterExtension.sharedCluster();
		LettuceConnectionFactory factory = LettuceFactories.cluster(RedisClusterExtension.shared());
		try (RedisMemoryMonitor monitor = new RedisMemoryMonitor(SpringDataRedisConnection.of(factory), Duration.ZERO)) {
			monitor.check();
			assertThat(monitor.readings()).extracting(RedisMemory::node)
				.containsExactlyInAnyOrderElementsOf(
						cluster.masters().stream().map((node) -> node.host() + ":" + node.port()).toList());
			assertThat(monitor.readings()).allMatch((memory) -> memory.usedMemory() > 0);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void gaugesShowEachNodesUsageAndWhetherItIsFull() {
		try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory", "64mb", "--maxmemory-policy",
				"volatile-ttl")) {
			LettuceConnectionFactory factory = LettuceFactories.standalone(redis.endpoint());
			SimpleMeterRegistry registry = new SimpleMeterRegistry();
			try (RedisMemoryMonitor monitor = new RedisMemoryMonitor(SpringDataRedisConnection.of(factory), Duration.ZERO)) {
				new RedisMemoryMetrics(registry, monitor);
				monitor.check();
				RedisMemory memory = monitor.readings().get(0);
				assertThat(memory.policy()).isEqualTo("volatile-ttl");
				assertThat(memory.mayEvictLimiterKeys()).as("every limiter key has a TTL").isTrue();
				String node = "127.0.0.1:" + redis.port();
				assertThat(registry.get("ratelimit.store.memory.usage").tag("node", node).gauge().value())
					.isEqualTo((double) memory.usedMemory() / (64 * 1024 * 1024));
				assertThat(registry.get("ratelimit.store.out.of.memory").tag("node", node).gauge().value()).isZero();
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void onlyNoEvictionKeepsTheLimitersKeysAndNoLimitEvictsNothing() {
		assertThat(memory("allkeys-lru", 100, 1000).mayEvictLimiterKeys()).isTrue();
		assertThat(memory("volatile-lfu", 100, 1000).mayEvictLimiterKeys()).isTrue();
		assertThat(memory("noeviction", 100, 1000).mayEvictLimiterKeys()).isFalse();
		assertThat(memory("allkeys-lru", 100, 0).mayEvictLimiterKeys()).as("no maxmemory").isFalse();
		assertThat(memory("allkeys-lru", 100, 0).usage()).isNaN();
	}

	@Test
	void fullMeansNoEvictionAtTheLimitLeavingOutReplicationBuffers() {
		assertThat(memory("noeviction", 1000, 1000).outOfMemory()).isTrue();
		assertThat(memory("noeviction", 999, 1000).outOfMemory()).isFalse();
		assertThat(memory("allkeys-lru", 2000, 1000).outOfMemory()).as("evicts instead").isFalse();
		Properties info = info("noeviction", 1100, 1000);
		info.setProperty("mem_not_counted_for_evict", "200");
		assertThat(RedisMemory.of("n", info).outOfMemory()).isFalse();
	}

	@Test
	void aReadingWithoutAPolicyOrWithGarbageIsRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> RedisMemory.of("n", new Properties()))
			.withMessageContaining("maxmemory_policy");
		Properties info = info("noeviction", 1, 1);
		info.setProperty("used_memory", "lots");
		assertThatIllegalArgumentException().isThrownBy(() -> RedisMemory.of("n", info))
			.withMessageContaining("used_memory=lots");
	}

	private static RedisMemory memory(String policy, long used, long max) {
		return RedisMemory.of("n", info(policy, used, max));
	}

	private static Properties info(String policy, long used, long max) {
		Properties info = new Properties();
		info.putAll(Map.of("maxmemory_policy", policy, "used_memory", String.valueOf(used), "maxmemory",
				String.valueOf(max)));
		return info;
	}

}
