package dev.ratelimit.redis;

import dev.ratelimit.store.RateLimitStoreException;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import org.jspecify.annotations.Nullable;

/**
 * Holds the store's connection across calls, and replaces it only when Lettuce reports it closed.
 */
final class RedisConnectionHolder implements AutoCloseable {

	private final Opener opener;

	/** The connection in use; replaced when Lettuce reports it closed. */
	private volatile @Nullable HeldConnection held;

	RedisConnectionHolder(Opener opener) {
		this.opener = opener;
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
	 * Opens a connection (from a Spring Data factory: its shared native connection, the default, else a dedicated one)
	 * that this holder keeps until it is closed. Asking a factory on every call costs a wrapper object and several
	 * lookups per request; holding the connection costs nothing, because Lettuce reconnects it by itself and it is
	 * only replaced when it was closed (the factory reset or stopped, the connection closed).
	 */
	private synchronized RedisClusterAsyncCommands<byte[], byte[]> reconnect(@Nullable HeldConnection stale) {
		HeldConnection current = this.held;
		if (current != null && current != stale && current.stateful.isOpen()) {
			return current.commands;
		}
		Opened connection;
		try {
			connection = this.opener.open();
		}
		catch (RuntimeException ex) {
			throw new RateLimitStoreException("Cannot connect to Redis: " + ex.getMessage(), ex);
		}
		RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands();
		StatefulConnection<?, ?> stateful = statefulConnection(commands);
		if (stateful == null) {
			// a kind of connection this holder cannot watch: open one again on every call
			connection.release().run();
			return commands;
		}
		this.held = new HeldConnection(connection.release(), commands, stateful);
		if (stale != null) {
			stale.release.run();
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
			current.release.run();
		}
	}

	/** Opens a connection; a failure to open it is thrown as it is. */
	@FunctionalInterface
	interface Opener {

		Opened open();

	}

	/**
	 * An open connection.
	 * @param commands its asynchronous commands
	 * @param release gives it back (closes it, or returns it to where it came from)
	 */
	record Opened(RedisClusterAsyncCommands<byte[], byte[]> commands, Runnable release) {
	}

	private record HeldConnection(Runnable release, RedisClusterAsyncCommands<byte[], byte[]> commands,
			StatefulConnection<?, ?> stateful) {
	}

}
