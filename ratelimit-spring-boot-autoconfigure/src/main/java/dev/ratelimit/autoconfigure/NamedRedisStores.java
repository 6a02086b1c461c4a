package dev.ratelimit.autoconfigure;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RoutingRateLimitStore;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.DefaultClientResources;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis servers of {@code ratelimit.stores.<store>.*}, each with its own connection factory (commands rejected
 * while disconnected, reconnects within a second) and Redis store; closed at shutdown. The rules name them with
 * {@code ratelimit.rules.<name>.store}; the others stay on the application's Redis, the store named
 * {@value #DEFAULT_STORE}.
 */
final class NamedRedisStores implements AutoCloseable {

	/** The name of the application's Redis among the stores. */
	static final String DEFAULT_STORE = "default";

	private static final Log logger = LogFactory.getLog(NamedRedisStores.class);

	private final ClientResources resources;

	private final Map<String, LettuceConnectionFactory> factories = new LinkedHashMap<>();

	private final Map<String, RedisRateLimitStore> stores = new LinkedHashMap<>();

	private final Map<String, String> ruleStores = new LinkedHashMap<>();

	NamedRedisStores(RateLimitProperties properties, RedisBatching batching) {
		properties.getRules().forEach((name, rule) -> {
			String store = rule.getStore();
			if (store == null || store.isBlank() || store.trim().equals(DEFAULT_STORE)) {
				return;
			}
			if (!properties.getStores().containsKey(store.trim())) {
				throw new InvalidRateLimitConfigurationException("ratelimit.rules." + name + ".store",
						"there is no store '" + store + "' among ratelimit.stores " + properties.getStores().keySet(),
						"Declare it (ratelimit.stores." + store.trim() + ".url), or remove store to use the"
								+ " application's Redis");
			}
			this.ruleStores.put(name, store.trim());
		});
		this.resources = DefaultClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
		try {
			properties.getStores().forEach((name, settings) -> {
				String prefix = "ratelimit.stores." + name;
				if (name.equals(DEFAULT_STORE)) {
					throw new InvalidRateLimitConfigurationException(prefix, "'" + DEFAULT_STORE + "' names the"
							+ " application's Redis (spring.data.redis.*)", "Give the store another name");
				}
				Duration timeout = (settings.getTimeout() != null) ? settings.getTimeout()
						: properties.getRedis().getTimeout();
				if (timeout.isNegative() || timeout.isZero()) {
					throw new InvalidRateLimitConfigurationException(prefix + ".timeout", "must be positive",
							"Set it to how long a decision may wait for this store, e.g. 100ms");
				}
				LettuceConnectionFactory factory = new LettuceConnectionFactory(standalone(prefix, settings),
						LettuceClientConfiguration.builder()
							.clientResources(this.resources)
							.clientOptions(ClientOptions.builder()
								.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
								.build())
							.build());
				factory.afterPropertiesSet();
				factory.start();
				this.factories.put(name, factory);
				this.stores.put(name, new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(factory),
						properties.getKeyPrefix())
					.timeout(timeout)
					.batching(batching)
					.ownConnection(false)
					.build());
				logger.info("Rate limit store '" + name + "' is the Redis at " + factory.getHostName() + ":"
						+ factory.getPort());
			});
		}
		catch (RuntimeException ex) {
			close();
			throw ex;
		}
	}

	private static RedisStandaloneConfiguration standalone(String prefix, RateLimitProperties.NamedStore settings) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(settings.getHost(),
				settings.getPort());
		configuration.setDatabase(settings.getDatabase());
		configuration.setUsername(settings.getUsername());
		if (settings.getPassword() != null) {
			configuration.setPassword(settings.getPassword());
		}
		String url = settings.getUrl();
		if (url != null && !url.isBlank()) {
			URI uri;
			try {
				uri = new URI(url.trim());
			}
			catch (URISyntaxException ex) {
				throw new InvalidRateLimitConfigurationException(prefix + ".url", "'" + url + "' is not a URL ("
						+ ex.getMessage() + ")", "Use redis://[user:password@]host:port[/database]");
			}
			if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
				throw new InvalidRateLimitConfigurationException(prefix + ".url", "'" + url + "' is not a redis:// URL"
						+ " of a host (TLS and Sentinel are not supported for a named store yet)",
						"Use redis://[user:password@]host:port[/database]");
			}
			configuration = new RedisStandaloneConfiguration(uri.getHost(), (uri.getPort() > 0) ? uri.getPort() : 6379);
			String userInfo = uri.getUserInfo();
			if (userInfo != null) {
				int colon = userInfo.indexOf(':');
				String user = (colon >= 0) ? userInfo.substring(0, colon) : null;
				configuration.setUsername((user != null && !user.isEmpty()) ? user : null);
				configuration.setPassword((colon >= 0) ? userInfo.substring(colon + 1) : userInfo);
			}
			String path = uri.getPath();
			if (path != null && path.length() > 1) {
				try {
					configuration.setDatabase(Integer.parseInt(path.substring(1)));
				}
				catch (NumberFormatException ex) {
					throw new InvalidRateLimitConfigurationException(prefix + ".url", "'" + path.substring(1)
							+ "' is not a database index", "Use redis://host:port/<database index>");
				}
			}
		}
		return configuration;
	}

	/** Returns whether any store is declared. */
	boolean isEmpty() {
		return this.stores.isEmpty();
	}

	/** Returns the routing store over the application's Redis store and the named ones. */
	RoutingRateLimitStore routing(RateLimitStore defaultStore) {
		Map<String, RateLimitStore> all = new LinkedHashMap<>();
		all.put(DEFAULT_STORE, defaultStore);
		all.putAll(this.stores);
		Map<String, String> ruleStores = Map.copyOf(this.ruleStores);
		return new RoutingRateLimitStore(all, DEFAULT_STORE, ruleStores::get);
	}

	/** Returns the named stores (not the application's Redis). */
	Map<String, RedisRateLimitStore> stores() {
		return Map.copyOf(this.stores);
	}

	/** Returns the store a rule names, or {@code null} for the application's Redis. */
	@Nullable String storeOf(String rule) {
		return this.ruleStores.get(rule);
	}

	@Override
	public void close() {
		this.stores.values().forEach(RedisRateLimitStore::close);
		this.factories.values().forEach(LettuceConnectionFactory::destroy);
		this.resources.shutdown(0, 1, TimeUnit.SECONDS);
	}

}
