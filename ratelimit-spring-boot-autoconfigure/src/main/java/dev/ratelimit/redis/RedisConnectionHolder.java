package dev.ratelimit.redis;

import dev.ratelimit.RateLimitStoreException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Holds the store's connection from a Lettuce connection factory across calls, and replaces it only when Lettuce
 * reports it closed.
 */
final class RedisConnectionHolder implements AutoCloseable {

	private final LettuceConnectionFactory connectionFactory;

	/** The connection in use; replaced when Lettuce reports it closed. */
	private volatile @Nullable HeldConnection held;

	RedisConnectionHolder(LettuceConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** Returns the commands of the held connection, taking one from the factory first if there is none or it closed. */
	RedisClusterAsyncCommands<byte[], byte[]> commands() {
		HeldConnection current = this.held;
		if (current != null && current.stateful.isOpen()) {
			return current.commands;
		}
		return reconnect(current);
	}

	/**
	 * Returns the cluster's topology as the held connection sees it now (Lettuce refreshes it in place).
	 * @throws IllegalStateException when the connection is not to a Redis Cluster
	 */
	Partitions partitions() {
		if (commands() instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection().getPartitions();
		}
		throw new IllegalStateException("Not a Redis Cluster connection");
	}

	/**
	 * Takes a connection from the factory: its shared native connection (the default), else a dedicated one that
	 * this holder keeps until it is closed. Asking the factory on every call costs a wrapper object and several
	 * lookups per request; holding the connection costs nothing, because Lettuce reconnects it by itself and it is
	 * only replaced when it was closed (the factory reset or stopped).
	 */
	private synchronized RedisClusterAsyncCommands<byte[], byte[]> reconnect(@Nullable HeldConnection stale) {
		HeldConnection current = this.held;
		if (current != null && current != stale && current.stateful.isOpen()) {
			return current.commands;
		}
		LettuceConnection connection;
		try {
			connection = (LettuceConnection) this.connectionFactory.getConnection();
		}
		catch (RuntimeException ex) {
			throw new RateLimitStoreException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
		RedisClusterAsyncCommands<byte[], byte[]> commands;
		try {
			commands = connection.getNativeConnection();
		}
		catch (RuntimeException ex) {
			connection.close();
			throw new RateLimitStoreException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
		StatefulConnection<?, ?> stateful = statefulConnection(commands);
		if (stateful == null) {
			// a kind of connection this holder cannot watch: ask the factory again on every call
			connection.close();
			return commands;
		}
		this.held = new HeldConnection(connection, commands, stateful);
		if (stale != null) {
			stale.connection.close();
		}
		return commands;
	}

	private static @Nullable StatefulConnection<?, ?> statefulConnection(
			RedisClusterAsyncCommands<byte[], byte[]> commands) {
		if (commands instanceof RedisAsyncCommands<byte[], byte[]> standalone) {
			return standalone.getStatefulConnection();
		}
		if (commands instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection();
		}
		return null;
	}

	/** Gives back the held connection (closing a shared native connection's wrapper leaves it open). */
	@Override
	public synchronized void close() {
		HeldConnection current = this.held;
		this.held = null;
		if (current != null) {
			current.connection.close();
		}
	}

	private record HeldConnection(LettuceConnection connection, RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<?, ?> stateful) {
	}

}
