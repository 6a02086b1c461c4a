package dev.ratelimit.redis;

import java.time.Duration;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisClusterExtension;
import dev.ratelimit.test.redis.RedisClusterTest;
import org.junit.jupiter.api.AfterEach;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store contract on a Redis Cluster of 3 masters with replicas: checks of one request land in different slots,
 * so all-or-nothing is kept by refunds.
 */
@RedisClusterTest
class RedisClusterRateLimitStoreIntegrationTests extends RateLimitStoreContractTests {

	private LettuceConnectionFactory factory;

	private RedisRateLimitStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.factory = LettuceFactories.cluster(RedisClusterExtension.shared());
		this.store = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "rl-test", Duration.ofSeconds(5), clock::micros);
		return this.store;
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		return RedisRateLimitStoreIntegrationTests.exists(this.factory, this.store.key(policy, subject));
	}

	@AfterEach
	void destroyFactory() {
		this.factory.destroy();
	}

}
