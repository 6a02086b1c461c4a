package dev.ratelimit.test.redis;

import java.util.function.Function;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.condition.DisabledIfEnvironmentVariable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@RedisStandaloneTest
class RedisStandaloneIntegrationTests {

	@Test
	void sharedServerAnswersPingOnAPrivatePort(RedisEndpoint redis) {
		assertThat(redis).isEqualTo(RedisStandaloneExtension.shared());
		assertThat(redis.ping()).isEqualTo("PONG");
		if (!redis.external()) {
			assertThat(redis.port()).isNotEqualTo(6379);
			assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
		}
	}

	@Test
	void flushAllRemovesAllKeys(RedisEndpoint redis) {
		withRedis(redis.uri(), commands -> commands.set("harness:key", "value"));

		redis.flushAll();

		long keys = withRedis(redis.uri(), RedisCommands::dbsize);
		assertThat(keys).isZero();
	}

	@Test
	void killedServerRestartsOnTheSamePort() {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			int port = server.port();
			withRedis(server.uri(), commands -> commands.set("harness:key", "value"));

			server.kill();

			assertThat(server.isRunning()).isFalse();
			assertThatThrownBy(() -> server.endpoint().ping()).isInstanceOf(RedisConnectionException.class);

			server.restart();

			assertThat(server.isRunning()).isTrue();
			assertThat(server.port()).isEqualTo(port);
			assertThat(server.endpoint().ping()).isEqualTo("PONG");
			String value = withRedis(server.uri(), commands -> commands.get("harness:key"));
			assertThat(value).as("no persistence").isNull();
		}
	}

	@Test
	void failedStartReportsTheServerOutput() {
		assertThatIllegalStateException().isThrownBy(() -> RedisServerProcess.start("--no-such-directive", "1"))
				.withMessageContaining("exited with code")
				.withMessageContaining("no-such-directive");
	}

	/** The extension restarts a shared server that a previous test killed (not applicable to an external one). */
	@Nested
	@DisabledIfEnvironmentVariable(named = RedisStandaloneExtension.REDIS_URL_ENV, matches = ".+")
	@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
	class SharedServerHealing {

		@Test
		@Order(1)
		void killSharedServer(RedisServerProcess server) {
			server.kill();

			assertThat(server.isRunning()).isFalse();
		}

		@Test
		@Order(2)
		void sharedServerIsRunningAgain(RedisServerProcess server, RedisEndpoint redis) {
			assertThat(server.isRunning()).isTrue();
			assertThat(redis.ping()).isEqualTo("PONG");
		}
	}

	static <T> T withRedis(String uri, Function<RedisCommands<String, String>, T> action) {
		RedisClient client = RedisClient.create(uri);
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return action.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}
}
