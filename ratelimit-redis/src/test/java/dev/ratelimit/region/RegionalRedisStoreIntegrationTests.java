package dev.ratelimit.region;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The store contract for rules with {@code scope: global} over Redis ({@code region.lua} for the windows, the shared
 * store for the rest), as one region sees it, on the test's clock, with a peer region that entries replicate to.
 */
@RedisStandaloneTest
class RegionalRedisStoreIntegrationTests extends RateLimitStoreContractTests {

	private LettuceConnectionFactory factory;

	private RedisRateLimitStore shared;

	private RegionalStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.factory = factory();
		this.shared = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "rl-region",
				Duration.ofSeconds(5), clock::micros);
		RedisRateLimitStore peer = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "rl-peer",
				Duration.ofSeconds(5), clock::micros);
		this.store = new RegionalStore(this.shared, this.shared, "eu", Map.of("us", peer), (name) -> true,
				Duration.ofSeconds(5), 10_000, clock::micros, () -> clock.micros() * 1_000L);
		return this.store;
	}

	/** Returns a factory of the Redis to use: the shared standalone server. */
	protected LettuceConnectionFactory factory() {
		return LettuceFactories.standalone(RedisStandaloneExtension.shared());
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		String key = this.shared.key(policy, subject);
		try (RedisConnection connection = this.factory.getConnection()) {
			return Boolean.TRUE.equals(connection.keyCommands().exists(key.getBytes(StandardCharsets.UTF_8)))
					|| Boolean.TRUE.equals(connection.keyCommands().exists((key + ":g").getBytes(StandardCharsets.UTF_8)));
		}
	}

	@Override
	protected boolean reservesWhereItDecides() {
		return false;
	}

	@AfterEach
	void closeStore() {
		this.store.replicate().join();
		this.store.close();
		this.factory.destroy();
	}

}
