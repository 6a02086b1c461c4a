package dev.ratelimit.redis;

import java.time.Duration;

import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

@RedisStandaloneTest
class RedisRateLimitStoreIntegrationTests extends RateLimitStoreContractTests {

	private LettuceConnectionFactory factory;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.factory = LettuceFactories.standalone(RedisStandaloneExtension.shared());
		return new RedisRateLimitStore(this.factory, "rl-test", Duration.ofSeconds(5), clock::micros);
	}

	@AfterEach
	void destroyFactory() {
		this.factory.destroy();
	}

}
