package dev.ratelimit.redis;

import java.util.Objects;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A {@link RedisStoreConnection} from a Spring Data Redis {@link LettuceConnectionFactory}: the factory's shared
 * native connection (or a dedicated one, as the factory is configured), held across calls. Spring Data Redis is an
 * optional dependency of this module: only this class needs it.
 */
public final class SpringDataRedisConnection implements RedisStoreConnection {

	private final LettuceConnectionFactory factory;

	private final boolean ownsFactory;

	private final RedisConnectionHolder holder;

	private SpringDataRedisConnection(LettuceConnectionFactory factory, boolean ownsFactory) {
		this.factory = Objects.requireNonNull(factory, "factory");
		this.ownsFactory = ownsFactory;
		this.holder = new RedisConnectionHolder(() -> {
			LettuceConnection connection = (LettuceConnection) factory.getConnection();
			try {
				return new RedisConnectionHolder.Opened(connection.getNativeConnection(), connection::close);
			}
			catch (RuntimeException ex) {
				connection.close();
				throw ex;
			}
		});
	}

	/**
	 * A connection through the application's factory as it is (closing it leaves the factory open).
	 * @param factory the factory, started
	 * @return the connection
	 */
	public static SpringDataRedisConnection of(LettuceConnectionFactory factory) {
		return new SpringDataRedisConnection(factory, false);
	}

	/** Returns the factory the connection comes from. */
	public LettuceConnectionFactory factory() {
		return this.factory;
	}

	@Override
	public RedisClusterAsyncCommands<byte[], byte[]> commands() {
		return this.holder.commands();
	}

	@Override
	public boolean isCluster() {
		return this.factory.isClusterAware();
	}

	@Override
	public boolean rejectsCommandsWhileDisconnected() {
		return LimiterConnectionFactory.rejectsWhileDisconnected(this.factory);
	}

	/**
	 * Returns this connection if its factory's connections already reject commands while disconnected, or if the
	 * factory's servers cannot be told (see {@link LimiterConnectionFactory#rejectingWhileDisconnected}); else a
	 * connection through a copy of the factory (same servers, credentials, TLS, client resources, timeouts and Cluster
	 * topology refresh) that rejects them, started now and destroyed when the connection is closed.
	 */
	@Override
	public RedisStoreConnection rejectingWhileDisconnected() {
		if (rejectsCommandsWhileDisconnected()) {
			return this;
		}
		LettuceConnectionFactory own = LimiterConnectionFactory.rejectingWhileDisconnected(this.factory);
		if (own == null) {
			return this;
		}
		own.afterPropertiesSet();
		own.start();
		return new SpringDataRedisConnection(own, true);
	}

	@Override
	public String describe() {
		RedisSentinelConfiguration sentinel = this.factory.getSentinelConfiguration();
		if (sentinel != null && sentinel.getMaster() != null) {
			return "master '" + sentinel.getMaster().getName() + "'";
		}
		if (this.factory.isClusterAware()) {
			return "cluster";
		}
		return this.factory.getHostName() + ":" + this.factory.getPort();
	}

	/** Gives back the held connection, and destroys the factory if this connection made it. */
	@Override
	public void close() {
		this.holder.close();
		if (this.ownsFactory) {
			this.factory.destroy();
		}
	}

}
