package dev.ratelimit.region;

import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisClusterExtension;
import dev.ratelimit.test.redis.RedisClusterTest;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store contract for rules with {@code scope: global} over a Redis Cluster of 3 masters: a request whose global
 * keys lie in several slots is one {@code region.lua} call per slot, and what a slot counted for a request that
 * another slot denied is given back.
 */
@RedisClusterTest
class RegionalRedisClusterStoreIntegrationTests extends RegionalRedisStoreIntegrationTests {

	@Override
	protected LettuceConnectionFactory factory() {
		return LettuceFactories.cluster(RedisClusterExtension.shared());
	}

}
