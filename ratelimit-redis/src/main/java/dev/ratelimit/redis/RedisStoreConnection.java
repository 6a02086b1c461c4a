package dev.ratelimit.redis;

import java.util.Objects;

import dev.ratelimit.store.RateLimitStoreException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The connection a {@link RedisRateLimitStore} (and a {@link RedisMemoryMonitor}) talks to Redis through: one
 * Lettuce connection held across calls, to a standalone Redis, a Sentinel-managed master or a Redis Cluster.
 * <p>
 * Made from a plain Lettuce client with {@link #of(RedisClient, RedisURI)} or {@link #of(RedisClusterClient)}, no
 * Spring needed; from a Spring Data {@code LettuceConnectionFactory} with {@link SpringDataRedisConnection}. Give the
 * client {@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}: Lettuce's default queues commands while
 * disconnected and writes them after the reconnect, charging limits for requests long decided without Redis (see
 * {@code docs/resilience.md}); on a connection that queues, the store cancels the queued commands of the calls it
 * gives up, which covers most but not all of them.
 */
public interface RedisStoreConnection extends AutoCloseable {

	/**
	 * Returns the asynchronous commands of the held connection, opening one first if there is none or it was closed.
	 * @return the commands (a {@link RedisAdvancedClusterAsyncCommands} for a Redis Cluster)
	 * @throws RateLimitStoreException when no connection can be opened
	 */
	RedisClusterAsyncCommands<byte[], byte[]> commands();

	/**
	 * Returns whether the connection is to a Redis Cluster.
	 * @return {@code true} for a Cluster
	 */
	boolean isCluster();

	/**
	 * Returns whether the connection rejects commands while it is disconnected rather than queueing them.
	 * @return {@code true} if it rejects them
	 */
	boolean rejectsCommandsWhileDisconnected();

	/**
	 * Returns a connection to the same Redis that rejects commands while disconnected: this one if it already does or
	 * if it cannot make one, else a new one that closes with the store.
	 * @return the connection to use
	 */
	default RedisStoreConnection rejectingWhileDisconnected() {
		return this;
	}

	/**
	 * Returns the Redis this connects to, for logs: {@code host:port}, {@code master 'name'} of a Sentinel group, or
	 * {@code cluster}.
	 * @return the description
	 */
	String describe();

	/**
	 * Returns the Cluster's topology as the held connection sees it now (Lettuce refreshes it in place).
	 * @return the partitions
	 * @throws IllegalStateException when the connection is not to a Redis Cluster
	 */
	default Partitions partitions() {
		if (commands() instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
			return cluster.getStatefulConnection().getPartitions();
		}
		throw new IllegalStateException("Not a Redis Cluster connection");
	}

	/** Closes the held connection (the client stays open: it is the caller's). */
	@Override
	void close();

	/**
	 * A connection to a standalone Redis, or to the master of a Sentinel group, through a plain Lettuce client.
	 * @param client the client, owned by the caller
	 * @param uri where to connect (a Sentinel URI for a Sentinel group)
	 * @return the connection, opened on first use
	 */
	static RedisStoreConnection of(RedisClient client, RedisURI uri) {
		Objects.requireNonNull(client, "client");
		Objects.requireNonNull(uri, "uri");
		return new LettuceClientConnection(false, LettuceClientConnection.rejects(client.getOptions()),
				LettuceClientConnection.describe(uri), () -> {
					var connection = client.connect(ByteArrayCodec.INSTANCE, uri);
					return new RedisConnectionHolder.Opened(connection.async(), connection::close);
				});
	}

	/**
	 * A connection to a Redis Cluster through a plain Lettuce client (routed by slot, following the topology as the
	 * client's options refresh it).
	 * @param client the client, owned by the caller
	 * @return the connection, opened on first use
	 */
	static RedisStoreConnection of(RedisClusterClient client) {
		Objects.requireNonNull(client, "client");
		return new LettuceClientConnection(true, LettuceClientConnection.rejects(client.getOptions()),
				"cluster", () -> {
					var connection = client.connect(ByteArrayCodec.INSTANCE);
					return new RedisConnectionHolder.Opened(connection.async(), connection::close);
				});
	}

}
