package dev.ratelimit.sync;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

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
 * The store contract for rules in {@code sync: local} mode over Redis ({@code sync.lua} behind the views), as one
 * instance sees it, on the test's clock.
 */
@RedisStandaloneTest
class LocalSyncRedisStoreIntegrationTests extends RateLimitStoreContractTests {

	private LettuceConnectionFactory factory;

	private RedisRateLimitStore shared;

	private LocalSyncStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.factory = factory();
		this.shared = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "rl-sync",
				Duration.ofSeconds(5), clock::micros);
		this.store = new LocalSyncStore(this.shared, this.shared, (name) -> SyncSettings.defaults(1000), 10_000,
				clock::micros, () -> clock.micros() * 1_000L);
		return this.store;
	}

	/** Returns a factory of the Redis to use: the shared standalone server. */
	protected LettuceConnectionFactory factory() {
		return LettuceFactories.standalone(RedisStandaloneExtension.shared());
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		this.store.flushAll().join();
		try (RedisConnection connection = this.factory.getConnection()) {
			return Boolean.TRUE.equals(connection.keyCommands()
				.exists(this.shared.key(policy, subject).getBytes(StandardCharsets.UTF_8)));
		}
	}

	@Override
	protected boolean reservesWhereItDecides() {
		return false;
	}

	@AfterEach
	void closeStore() {
		this.store.close();
		this.factory.destroy();
	}

}
