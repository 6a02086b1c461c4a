package dev.ratelimit.redis;

import java.time.Duration;
import java.util.Optional;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.connection.lettuce.RedisCredentialsProviderFactory;

/**
 * The store's own Lettuce connection factory: the application's Redis (same servers, credentials, TLS, client
 * resources, timeouts and Cluster topology refresh; not its read-from setting, since the store always writes), but with client options that reject commands while a connection
 * is disconnected ({@link ClientOptions.DisconnectedBehavior#REJECT_COMMANDS}) instead of queueing them. Lettuce's
 * default queues them, and also queues again the commands that a broken connection had written but not seen answered,
 * and writes them all after the reconnect, seconds later: for a rate limit check, a charge for a request that was
 * decided without Redis long before. With rejection, such a check fails at once and the limiter falls back.
 * The application's own connections keep their options.
 */
final class LimiterConnectionFactory {

	private LimiterConnectionFactory() {
	}

	/**
	 * Returns whether connections of the factory reject commands while disconnected.
	 * @param factory the factory
	 * @return {@code true} if they do, {@code false} if they queue them
	 */
	static boolean rejectsWhileDisconnected(LettuceConnectionFactory factory) {
		ClientOptions options = factory.getClientConfiguration().getClientOptions().orElse(null);
		if (options == null) {
			return false;
		}
		return switch (options.getDisconnectedBehavior()) {
			case REJECT_COMMANDS -> true;
			case ACCEPT_COMMANDS -> false;
			case DEFAULT -> !options.isAutoReconnect();
		};
	}

	/**
	 * Creates (not yet started) a factory for the same Redis as {@code shared} whose connections reject commands
	 * while disconnected, or returns {@code null} when the servers of {@code shared} cannot be told: a factory built
	 * with a standalone configuration through the untyped constructor, whose standalone configuration is then not the
	 * one it connects to (nor is a static master/replica factory's, which this cannot tell apart from the default
	 * {@code localhost:6379}; see {@link RedisRateLimitStoreBuilder#ownConnection}; {@link SpringDataRedisConnection#rejectingWhileDisconnected} uses it).
	 * @param shared the application's factory
	 * @return the store's own factory, or {@code null}
	 */
	static @Nullable LettuceConnectionFactory rejectingWhileDisconnected(LettuceConnectionFactory shared) {
		LettuceClientConfiguration client = new RejectingClientConfiguration(shared.getClientConfiguration(),
				shared.isClusterAware());
		if (shared.isClusterAware()) {
			return new LettuceConnectionFactory(shared.getClusterConfiguration(), client);
		}
		if (shared.isRedisSentinelAware()) {
			return new LettuceConnectionFactory(shared.getSentinelConfiguration(), client);
		}
		if (shared.getSocketConfiguration() != null) {
			return new LettuceConnectionFactory(shared.getSocketConfiguration(), client);
		}
		RedisStandaloneConfiguration standalone = shared.getStandaloneConfiguration();
		if (!standalone.getHostName().equals(shared.getHostName()) || standalone.getPort() != shared.getPort()
				|| standalone.getDatabase() != shared.getDatabase()) {
			return null;
		}
		return new LettuceConnectionFactory(standalone, client);
	}

	/** The application's client configuration with client options that reject commands while disconnected. */
	private static final class RejectingClientConfiguration implements LettuceClientConfiguration {

		private final LettuceClientConfiguration shared;

		private final ClientOptions options;

		RejectingClientConfiguration(LettuceClientConfiguration shared, boolean cluster) {
			this.shared = shared;
			ClientOptions options = shared.getClientOptions()
				.orElseGet(() -> cluster ? ClusterClientOptions.create() : ClientOptions.create());
			this.options = (options instanceof ClusterClientOptions clusterOptions)
					? clusterOptions.mutate().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build()
					: options.mutate().disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build();
		}

		@Override
		public Optional<ClientOptions> getClientOptions() {
			return Optional.of(this.options);
		}

		@Override
		public boolean isUseSsl() {
			return this.shared.isUseSsl();
		}

		@Override
		public boolean isVerifyPeer() {
			return this.shared.isVerifyPeer();
		}

		@Override
		public SslVerifyMode getVerifyMode() {
			return this.shared.getVerifyMode();
		}

		@Override
		public boolean isStartTls() {
			return this.shared.isStartTls();
		}

		@Override
		public Optional<ClientResources> getClientResources() {
			return this.shared.getClientResources();
		}

		@Override
		public Optional<String> getClientName() {
			return this.shared.getClientName();
		}

		/** None: the store writes, so it always talks to the master, whatever the application reads from. */
		@Override
		public Optional<ReadFrom> getReadFrom() {
			return Optional.empty();
		}

		@Override
		public Optional<RedisCredentialsProviderFactory> getRedisCredentialsProviderFactory() {
			return this.shared.getRedisCredentialsProviderFactory();
		}

		@Override
		public Duration getCommandTimeout() {
			return this.shared.getCommandTimeout();
		}

		@Override
		public Duration getShutdownTimeout() {
			return this.shared.getShutdownTimeout();
		}

		@Override
		public Duration getShutdownQuietPeriod() {
			return this.shared.getShutdownQuietPeriod();
		}

	}

}
