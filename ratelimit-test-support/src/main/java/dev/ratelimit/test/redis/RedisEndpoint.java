package dev.ratelimit.test.redis;

import java.net.URI;
import java.util.function.Function;

import io.lettuce.core.api.sync.RedisCommands;

/**
 * Where a standalone Redis for tests is reachable.
 *
 * @param host     host name or IP
 * @param port     client port
 * @param uri      a Redis URI such as {@code redis://127.0.0.1:20123} (may carry credentials if external)
 * @param external {@code true} if the server was provided through {@code REDIS_URL} rather than
 *                 started by the harness (it must then not be killed or restarted)
 */
public record RedisEndpoint(String host, int port, String uri, boolean external) {

	/**
	 * Parses an external server's URI such as {@code redis://host:port} ({@code host:port} is
	 * accepted too; the port defaults to 6379).
	 */
	public static RedisEndpoint external(String value) {
		String uri = value.contains("://") ? value.trim() : "redis://" + value.trim();
		URI parsed = URI.create(uri);
		if (parsed.getHost() == null) {
			throw new IllegalArgumentException("Not a Redis URI (expected redis://host:port): " + value);
		}
		return new RedisEndpoint(parsed.getHost(), parsed.getPort() < 0 ? 6379 : parsed.getPort(), uri, true);
	}

	/** {@code host:port}. */
	public String hostAndPort() {
		return host + ":" + port;
	}

	/** Sends PING and returns the reply ({@code PONG}). */
	public String ping() {
		return RedisAdmin.call(uri, RedisCommands::ping);
	}

	/**
	 * Runs commands on a fresh connection, e.g. to read what a test left in Redis.
	 * @param action the commands
	 * @param <T> what they return
	 * @return what they returned
	 */
	public <T> T call(Function<RedisCommands<String, String>, T> action) {
		return RedisAdmin.call(uri, action);
	}

	/** Deletes every key in every database (FLUSHALL), e.g. to start a test from a clean state. */
	public void flushAll() {
		RedisAdmin.call(uri, RedisCommands::flushall);
	}
}
