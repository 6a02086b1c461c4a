package dev.ratelimit.redis;

import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * What a test class of this module opens on a test's Redis: a Spring Data connection factory for the stores, and a
 * Lettuce connection of strings to look at what they wrote. Closed once, after the class's tests.
 */
final class RedisFixture implements AutoCloseable {

	private final LettuceConnectionFactory factory;

	private final RedisClient client;

	private final StatefulRedisConnection<String, String> connection;

	RedisFixture(RedisEndpoint endpoint) {
		this.factory = LettuceFactories.standalone(endpoint);
		this.client = RedisClient.create(endpoint.uri());
		this.connection = this.client.connect(StringCodec.UTF8);
	}

	/** The stores' connection. */
	SpringDataRedisConnection storeConnection() {
		return SpringDataRedisConnection.of(this.factory);
	}

	/** Commands to look at what the stores wrote. */
	RedisCommands<String, String> redis() {
		return this.connection.sync();
	}

	@Override
	public void close() {
		this.connection.close();
		this.client.shutdown();
		this.factory.destroy();
	}

}
