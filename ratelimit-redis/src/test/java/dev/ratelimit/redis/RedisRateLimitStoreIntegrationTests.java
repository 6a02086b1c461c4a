package dev.ratelimit.redis;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;

import dev.ratelimit.RateLimitStoreContractTests;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@RedisStandaloneTest
class RedisRateLimitStoreIntegrationTests extends RateLimitStoreContractTests {

	private LettuceConnectionFactory factory;

	private RedisRateLimitStore store;

	@Override
	protected RateLimitStore createStore(MutableClock clock) {
		this.factory = LettuceFactories.standalone(RedisStandaloneExtension.shared());
		this.store = new RedisRateLimitStore(SpringDataRedisConnection.of(this.factory), "rl-test", Duration.ofSeconds(5), clock::micros);
		return this.store;
	}

	@Override
	protected boolean holdsState(RateLimitPolicy policy, String subject) {
		return exists(this.factory, this.store.key(policy, subject));
	}

	/** Returns whether Redis (standalone or Cluster, as the factory connects) has the key. */
	static boolean exists(LettuceConnectionFactory factory, String key) {
		try (RedisConnection connection = factory.getConnection()) {
			return Boolean.TRUE.equals(connection.keyCommands().exists(key.getBytes(StandardCharsets.UTF_8)));
		}
	}

	@AfterEach
	void destroyFactory() {
		this.factory.destroy();
	}

	@Test
	void keepsWorkingWhenTheFactoryReplacesItsSharedConnection() {
		LettuceConnectionFactory own = LettuceFactories.standalone(RedisStandaloneExtension.shared());
		try (RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(own), "rl-held", Duration.ofSeconds(5))) {
			RateLimitCheck check = new RateLimitCheck(
					RateLimitPolicy.of("held", Algorithm.GCRA, 3, Duration.ofMinutes(1)), "reset-" + System.nanoTime(),
					1, false);
			assertThat(store.evaluate(List.of(check)).get(0).remaining()).isEqualTo(2);
			// closes the shared native connection the store holds
			own.resetConnection();
			assertThat(store.evaluate(List.of(check)).get(0).remaining()).isEqualTo(1);
		}
		finally {
			own.destroy();
		}
	}

	@Test
	void holdsOneDedicatedConnectionWhenTheFactoryDoesNotShareAndGivesItBackOnClose() {
		RedisEndpoint endpoint = RedisStandaloneExtension.shared();
		String name = "rl-held-" + System.nanoTime();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(endpoint.host(), endpoint.port());
		String userInfo = URI.create(endpoint.uri()).getUserInfo();
		if (userInfo != null && userInfo.contains(":")) {
			configuration.setPassword(userInfo.substring(userInfo.indexOf(':') + 1));
		}
		LettuceConnectionFactory own = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().clientName(name).build());
		own.setShareNativeConnection(false);
		own.afterPropertiesSet();
		own.start();
		RedisClient client = RedisClient.create(RedisStandaloneExtension.shared().uri());
		try (StatefulRedisConnection<String, String> admin = client.connect()) {
			RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(own), "rl-held", Duration.ofSeconds(5));
			RateLimitCheck check = new RateLimitCheck(
					RateLimitPolicy.of("held", Algorithm.GCRA, 100, Duration.ofMinutes(1)),
					"dedicated-" + System.nanoTime(), 1, false);
			assertThat(clients(admin, name)).isZero();
			for (int i = 0; i < 20; i++) {
				assertThat(store.evaluate(List.of(check)).get(0).allowed()).isTrue();
			}
			assertThat(clients(admin, name)).as("one dedicated connection for all calls").isOne();
			store.close();
			await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(clients(admin, name)).isZero());
		}
		finally {
			client.shutdown();
			own.destroy();
		}
	}

	/** Returns the number of connections to Redis with that client name. */
	private static long clients(StatefulRedisConnection<String, String> admin, String name) {
		return admin.sync().clientList().lines().filter((line) -> line.contains(" name=" + name + " ")).count();
	}

}
