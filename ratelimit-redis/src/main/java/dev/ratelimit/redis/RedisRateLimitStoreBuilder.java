package dev.ratelimit.redis;

import java.time.Duration;
import java.util.Objects;

import dev.ratelimit.lease.LeaseIds;

/**
 * Builds a {@link RedisRateLimitStore} on Redis's clock. The key prefix is fixed when the builder is created, since
 * everything else that names keys (the overrides, the rules' validation) must use the same one.
 */
public final class RedisRateLimitStoreBuilder {

	private final RedisStoreConnection connection;

	private final String keyPrefix;

	private Duration timeout = Duration.ofMillis(100);

	private boolean ownConnection = true;

	private RedisBatching batching = RedisBatching.DEFAULT;

	/**
	 * @param connection the connection to Redis ({@link RedisStoreConnection#of} a Lettuce client, or
	 * {@link SpringDataRedisConnection#of} a Spring Data factory)
	 * @param keyPrefix the key prefix
	 */
	public RedisRateLimitStoreBuilder(RedisStoreConnection connection, String keyPrefix) {
		this.connection = Objects.requireNonNull(connection, "connection");
		this.keyPrefix = Objects.requireNonNull(keyPrefix, "keyPrefix");
	}

	/**
	 * Sets how long a decision may wait for Redis before failing (100 ms unless set).
	 * @param timeout the timeout, positive
	 * @return this builder
	 */
	public RedisRateLimitStoreBuilder timeout(Duration timeout) {
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("The Redis timeout of the rate limit store must be positive but was "
					+ timeout);
		}
		this.timeout = timeout;
		return this;
	}

	/** Returns the timeout as it stands. */
	public Duration timeout() {
		return this.timeout;
	}

	/**
	 * Sets whether the store connects through its own connection ({@link RedisStoreConnection#rejectingWhileDisconnected}:
	 * for a Spring Data factory, a copy of the application's factory whose connections reject commands while
	 * disconnected; the default), or through the given connection as it is.
	 * Lettuce's default is to queue commands while disconnected and write them after the reconnect, when the limiter
	 * has long decided without them: a check charged in Redis for a request it did not admit. Without its own
	 * connection the store cancels the commands of calls it gives up, which covers those still queued, not those that
	 * a broken connection had written and Lettuce writes again after the reconnect. Its own factory is not needed (and
	 * not created) when the application's already rejects commands while disconnected, nor when its servers cannot be
	 * told (a standalone configuration passed to the untyped constructor); it cannot be told apart from the default
	 * {@code localhost:6379} for a static master/replica setup ({@code spring.data.redis.masterreplica.*}): switch it
	 * off there (the auto-configuration does).
	 * @param ownConnection whether to use its own connection factory
	 * @return this builder
	 */
	public RedisRateLimitStoreBuilder ownConnection(boolean ownConnection) {
		this.ownConnection = ownConnection;
		return this;
	}

	/**
	 * Sets how the store batches decisions ({@link RedisBatching#DEFAULT} unless set).
	 * @param batching the batching, {@link RedisBatching#OFF} for one script call per decision
	 * @return this builder
	 */
	public RedisRateLimitStoreBuilder batching(RedisBatching batching) {
		this.batching = Objects.requireNonNull(batching, "batching");
		return this;
	}

	/** Returns the batching as it stands. */
	public RedisBatching batching() {
		return this.batching;
	}

	/** Returns the key prefix. */
	public String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Builds the store.
	 * @throws IllegalArgumentException when the key prefix is not valid
	 */
	public RedisRateLimitStore build() {
		RedisStoreConnection connection = this.ownConnection ? this.connection.rejectingWhileDisconnected()
				: this.connection;
		try {
			return new RedisRateLimitStore(connection, this.keyPrefix, this.timeout, null, LeaseIds.random(),
					this.batching);
		}
		catch (RuntimeException ex) {
			if (connection != this.connection) {
				connection.close();
			}
			throw ex;
		}
	}

}
