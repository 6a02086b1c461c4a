package dev.ratelimit.sync;

import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisClusterExtension;
import dev.ratelimit.test.redis.RedisClusterTest;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store contract for rules in {@code sync: local} mode over a Redis Cluster of 3 masters: a flush of keys in
 * several slots is one {@code sync.lua} call per slot.
 */
@RedisClusterTest
class LocalSyncRedisClusterStoreIntegrationTests extends LocalSyncRedisStoreIntegrationTests {

	@Override
	protected LettuceConnectionFactory factory() {
		return LettuceFactories.cluster(RedisClusterExtension.shared());
	}

}
