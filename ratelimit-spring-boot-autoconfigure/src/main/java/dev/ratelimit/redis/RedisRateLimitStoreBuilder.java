package dev.ratelimit.redis;

import java.time.Duration;
import java.util.Objects;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Builds a {@link RedisRateLimitStore} on Redis's clock. The key prefix is fixed when the builder is created, since
 * everything else that names keys (the overrides, the rules' validation) must use the same one.
 */
public final class RedisRateLimitStoreBuilder {

	private final LettuceConnectionFactory connectionFactory;

	private final String keyPrefix;

	private Duration timeout = Duration.ofMillis(100);

	/**
	 * @param connectionFactory the Lettuce connection factory
	 * @param keyPrefix the key prefix
	 */
	public RedisRateLimitStoreBuilder(LettuceConnectionFactory connectionFactory, String keyPrefix) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
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

	/** Returns the key prefix. */
	public String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Builds the store.
	 * @throws IllegalArgumentException when the key prefix is not valid
	 */
	public RedisRateLimitStore build() {
		return new RedisRateLimitStore(this.connectionFactory, this.keyPrefix, this.timeout);
	}

}
