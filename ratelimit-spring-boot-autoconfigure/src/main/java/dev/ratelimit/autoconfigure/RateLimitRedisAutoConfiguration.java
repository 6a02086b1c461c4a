package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisMemoryMonitor;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.RedisStoreConnection;
import dev.ratelimit.region.RegionBackend;
import dev.ratelimit.region.RegionalStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.resilience.ResilientRateLimiterBuilder;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.lists.AccessListRepository;
import dev.ratelimit.lists.AccessListSynchronizer;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.lists.RedisAccessListRepository;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RedisRuleOverrideRepository;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.rule.RuleOverrideSynchronizer;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncBackend;
import dev.ratelimit.sync.SyncListener;
import dev.ratelimit.sync.SyncSettings;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Keeps rate limits in Redis, behind a circuit breaker and a deny cache with a per-rule fallback, when the application has a Lettuce {@code RedisConnectionFactory} (configured through
 * {@code spring.data.redis.*}: standalone, Sentinel or Cluster) and {@code ratelimit.store} is {@code auto} or
 * {@code redis}. The circuit breaker, named {@code ratelimit-store}, is taken from the application's
 * {@link CircuitBreakerRegistry} when it has one (see {@link ResilientRateLimiterBuilder}). The store and the limiter
 * are adjusted by {@link RedisRateLimitStoreBuilderCustomizer} and {@link ResilientRateLimiterBuilderCustomizer} beans.
 */
@AutoConfiguration(after = DataRedisAutoConfiguration.class)
@ConditionalOnClass(LettuceConnectionFactory.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean(LettuceConnectionFactory.class)
@Conditional(OnSharedStoreCondition.class)
public final class RateLimitRedisAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitRedisAutoConfiguration.class);

	/**
	 * Caps Lettuce's reconnect back-off at one second (its default grows to 30 s), so that decisions return to Redis
	 * within seconds of its recovery rather than half a minute. Switch off with
	 * {@code ratelimit.redis.cap-reconnect-delay=false}.
	 */
	@Bean
	@ConditionalOnBooleanProperty(name = "ratelimit.redis.cap-reconnect-delay", matchIfMissing = true)
	ClientResourcesBuilderCustomizer rateLimitReconnectDelayCustomizer() {
		return (builder) -> builder
			.reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS));
	}

	@Bean
	@ConditionalOnMissingBean(RateLimiter.class)
	ResilientRateLimiter rateLimiter(RateLimitStore rateLimitStore, RateLimitRules rules,
			RateLimitProperties properties, ObjectProvider<Clock> clock, ObjectProvider<RateLimitListener> listeners,
			ObjectProvider<CircuitBreakerRegistry> circuitBreakerRegistry,
			ObjectProvider<ResilientRateLimiterBuilderCustomizer> customizers, ObjectProvider<LocalSyncViews> localSync,
			ObjectProvider<GlobalRegions> globalRegions) {
		RateLimitProperties.DenyCache denyCache = properties.getDenyCache();
		LocalSyncViews views = localSync.getIfAvailable();
		GlobalRegions regions = globalRegions.getIfAvailable();
		RateLimitStore decidingStore = (views != null) ? views.store() : rateLimitStore;
		ResilientRateLimiterBuilder builder = ResilientRateLimiter
			.builder((regions != null) ? regions.store() : decidingStore)
			.fallbackStore(new LocalRateLimitStore(properties.getLocal().getMaximumEntries(),
					clock.getIfAvailable(Clock::systemUTC)))
			.failureModes((name) -> rules.get(name).map(RateLimitRule::onStoreFailure).orElse(StoreFailureMode.LOCAL))
			.circuitBreakerConfig(circuitBreakerConfig(properties.getCircuitBreaker()))
			.circuitBreakerRegistry(circuitBreakerRegistry.getIfUnique())
			.denyCache(denyCache.isEnabled())
			.denyCacheMaximumEntries(denyCache.getMaximumEntries())
			.denyCacheMinimumWait(denyCache.getMinimumWait())
			.listener(RateLimitListener.composite(listeners.orderedStream().toList()));
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		return builder.build();
	}

	/**
	 * Decides the rules in {@code sync: local} mode from this instance's views, synchronized with the store in
	 * batches; created only when a rule has {@code sync: local}. Closing it (at shutdown) flushes every view.
	 */
	@Bean
	@ConditionalOnMissingBean(LocalSyncViews.class)
	@Conditional(OnLocalSyncRulesCondition.class)
	LocalSyncViews rateLimitLocalSyncViews(RateLimitStore rateLimitStore, RateLimitRules rules,
			RateLimitProperties properties, ObjectProvider<SyncListener> listener) {
		if (!(rateLimitStore instanceof SyncBackend backend)) {
			throw new InvalidRateLimitConfigurationException("ratelimit.rules.<name>.sync",
					"the rate limit store " + rateLimitStore.getClass().getName() + " takes no local flushes",
					"Use the Redis store, or sync: exact");
		}
		if (properties.getSync().getMaxKeys() < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.sync.max-keys",
					"must be at least 1 but was " + properties.getSync().getMaxKeys(),
					"Set it to the most keys an instance keeps a local view of, e.g. 100000");
		}
		Duration tick = rules.all()
			.stream()
			.map(RateLimitRule::sync)
			.filter(Objects::nonNull)
			.map(SyncSettings::interval)
			.min(Duration::compareTo)
			.orElse(Duration.ofMillis(100));
		logger.info("Rules in sync: local mode decide from local views, flushed at least every " + tick);
		return new LocalSyncViews(new LocalSyncStore(rateLimitStore, backend,
				(name) -> rules.get(name).map(RateLimitRule::sync).orElse(null), properties.getSync().getMaxKeys(),
				tick, listener.getIfAvailable(() -> SyncListener.NONE)));
	}

	/**
	 * Decides the rules with {@code scope: global} on every region's entries in this region's Redis, and replicates
	 * this region's entries to the other regions' Redis every {@code ratelimit.regions.replication-interval}; created
	 * only when a rule has {@code scope: global}.
	 */
	@Bean
	@ConditionalOnMissingBean(GlobalRegions.class)
	@Conditional(OnGlobalRulesCondition.class)
	GlobalRegions rateLimitGlobalRegions(RateLimitStore rateLimitStore, RateLimitProperties properties,
			ObjectProvider<LocalSyncViews> localSync) {
		if (!(rateLimitStore instanceof RegionBackend backend)) {
			throw new InvalidRateLimitConfigurationException("ratelimit.rules.<name>.scope",
					"the rate limit store " + rateLimitStore.getClass().getName() + " keeps no region entries",
					"Use the Redis store, or scope: region or share");
		}
		RuleCompiler.checkPeers(properties);
		Duration interval = properties.replicationInterval();
		if (interval.isNegative() || interval.isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.regions.replication-interval",
					"must be positive but was " + interval, "Set how often a region ships its entries, e.g. 100ms");
		}
		// a link between regions may take a good part of a second: at least 2 s for a connection or a replication call
		Duration storeTimeout = rateLimitStore.timeout();
		Duration timeout = (storeTimeout != null && storeTimeout.compareTo(PEER_TIMEOUT) > 0) ? storeTimeout
				: PEER_TIMEOUT;
		List<AutoCloseable> resources = new ArrayList<>();
		Map<String, RegionBackend> peers = new LinkedHashMap<>();
		// reconnects within a second of a peer's return, as for this region's Redis
		ClientResources clientResources = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
		properties.deploymentRegions().forEach((name, region) -> {
			if (!name.equals(properties.getRegion())) {
				RedisURI uri = peerUri(name, region, timeout);
				RedisClient client = RedisClient.create(clientResources, uri);
				client.setOptions(ClientOptions.builder()
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
					.socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
					.timeoutOptions(TimeoutOptions.enabled(timeout))
					.build());
				RedisRateLimitStore peer = new RedisRateLimitStore(RedisStoreConnection.of(client, uri),
						properties.getKeyPrefix(), timeout);
				resources.add(peer);
				resources.add(client::shutdown);
				peers.put(name, peer);
			}
		});
		resources.add(clientResources::shutdown);
		Set<String> global = new LinkedHashSet<>();
		properties.getRules().forEach((name, rule) -> {
			if (rule.getScope() == RateLimitProperties.Scope.GLOBAL) {
				global.add(name);
			}
		});
		LocalSyncViews views = localSync.getIfAvailable();
		logger.info("Rules " + global + " hold across regions: region '" + properties.getRegion()
				+ "' counts in its Redis and replicates to " + peers.keySet() + " every " + interval);
		return new GlobalRegions(new RegionalStore((views != null) ? views.store() : rateLimitStore, backend,
				properties.getRegion(), peers, global::contains, interval, timeout, MAX_PENDING), resources);
	}

	/** The least time a connection to a peer region, or a replication call, may take before it fails. */
	private static final Duration PEER_TIMEOUT = Duration.ofSeconds(2);

	/** The most entries kept per peer region while it does not acknowledge them. */
	private static final long MAX_PENDING = 1_000_000;

	private static RedisURI peerUri(String name, RateLimitProperties.Region region, Duration timeout) {
		RedisURI uri;
		try {
			if (region.getUrl() != null && !region.getUrl().isBlank()) {
				uri = RedisURI.create(region.getUrl());
			}
			else {
				RedisURI.Builder builder = RedisURI.builder()
					.withHost(region.getHost())
					.withPort(region.getPort())
					.withSsl(region.isSsl());
				if (region.getPassword() != null) {
					builder = (region.getUsername() != null)
							? builder.withAuthentication(region.getUsername(), region.getPassword().toCharArray())
							: builder.withPassword(region.getPassword().toCharArray());
				}
				uri = builder.build();
			}
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException("ratelimit.regions." + name + ".url", ex.getMessage(),
					"Write it as spring.data.redis.url takes it, e.g. redis://redis." + name + ".internal:6379");
		}
		uri.setTimeout(timeout);
		return uri;
	}

	static CircuitBreakerConfig circuitBreakerConfig(RateLimitProperties.CircuitBreaker breaker) {
		try {
			return CircuitBreakerConfig.custom()
				.failureRateThreshold(breaker.getFailureRateThreshold())
				.slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
				.slidingWindowSize(breaker.getSlidingWindowSize())
				.minimumNumberOfCalls(breaker.getMinimumNumberOfCalls())
				.waitDurationInOpenState(breaker.getWaitDurationInOpenState())
				.permittedNumberOfCallsInHalfOpenState(breaker.getPermittedNumberOfCallsInHalfOpenState())
				.build();
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException("ratelimit.circuit-breaker", ex.getMessage(),
					"Use a failure rate threshold in (0, 100], positive sizes and a positive wait duration");
		}
	}

	@Bean
	@ConditionalOnMissingBean
	RuleOverrideRepository rateLimitRuleOverrideRepository(LettuceConnectionFactory connectionFactory,
			RateLimitProperties properties) {
		return new RedisRuleOverrideRepository(connectionFactory, properties.getKeyPrefix(),
				properties.getExceptions().getMaxPerRule());
	}

	@Bean
	@ConditionalOnMissingBean
	RuleOverrideSynchronizer rateLimitRuleOverrideSynchronizer(RuleOverrideRepository repository, RateLimitRules rules,
			RateLimitProperties properties) {
		return new RuleOverrideSynchronizer(repository, rules, properties.getOverrides().getRefreshInterval());
	}

	@Bean
	@ConditionalOnMissingBean
	AccessListRepository rateLimitAccessListRepository(LettuceConnectionFactory connectionFactory,
			RateLimitProperties properties, ObjectProvider<Clock> clock) {
		return new RedisAccessListRepository(connectionFactory, properties.getKeyPrefix(),
				properties.getLists().getMaxEntries(), clock.getIfAvailable(Clock::systemUTC)::millis);
	}

	/**
	 * Keeps this instance's copy of the lists current: Redis pub/sub on every change, and a version check every
	 * {@code ratelimit.lists.refresh-interval} for a missed message. Not on the request path.
	 */
	@Bean
	@ConditionalOnMissingBean
	AccessListSynchronizer rateLimitAccessListSynchronizer(AccessListRepository repository, RateLimitLists lists,
			LettuceConnectionFactory connectionFactory, RateLimitProperties properties) {
		boolean shared = repository instanceof RedisAccessListRepository;
		return new AccessListSynchronizer(repository, lists, properties.getLists().getRefreshInterval(),
				shared ? connectionFactory : null, RedisAccessListRepository.channel(properties.getKeyPrefix()));
	}

	@Bean
	RedisStoreStartupCheck rateLimitRedisStartupCheck(ObjectProvider<RateLimitStore> store,
			ObjectProvider<RateLimitRules> rules, LettuceConnectionFactory connectionFactory) {
		return new RedisStoreStartupCheck(store, rules, where(connectionFactory));
	}

	/**
	 * Reads Redis's memory at start-up and every {@code ratelimit.redis.memory-check-interval}: warns when its
	 * {@code maxmemory-policy} may evict rate limit keys, and feeds the health details and metrics.
	 */
	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	RedisMemoryMonitor rateLimitRedisMemoryMonitor(LettuceConnectionFactory connectionFactory,
			RateLimitProperties properties) {
		Duration interval = properties.getRedis().getMemoryCheckInterval();
		if (interval.isNegative()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.redis.memory-check-interval",
					"must not be negative", "Set it to how often to read Redis's memory, e.g. 1m, or 0 for start-up only");
		}
		RedisMemoryMonitor monitor = new RedisMemoryMonitor(SpringDataRedisConnection.of(connectionFactory), interval);
		monitor.start();
		return monitor;
	}

	private static String where(LettuceConnectionFactory connectionFactory) {
		if (connectionFactory.isClusterAware()) {
			return "cluster";
		}
		if (connectionFactory.getSentinelConfiguration() != null) {
			return "sentinel, master '" + connectionFactory.getSentinelConfiguration().getMaster().getName() + "'";
		}
		return "standalone, " + connectionFactory.getHostName() + ":" + connectionFactory.getPort();
	}

	private static RedisBatching batching(RateLimitProperties.Batch batch) {
		atLeastOne("ratelimit.redis.batch.lanes", batch.getLanes(),
				"Set how many script calls may be in flight at once, e.g. 2");
		atLeastOne("ratelimit.redis.batch.max-requests", batch.getMaxRequests(),
				"Set the most requests one script call carries, e.g. 64");
		atLeastOne("ratelimit.redis.batch.max-checks", batch.getMaxChecks(),
				"Set the most checks one script call carries, e.g. 256");
		return batch.isEnabled()
				? new RedisBatching(true, batch.getLanes(), batch.getMaxRequests(), batch.getMaxChecks(),
						batch.isAcrossSlots())
				: RedisBatching.OFF;
	}

	private static void atLeastOne(String property, int value, String fix) {
		if (value < 1) {
			throw new InvalidRateLimitConfigurationException(property, "must be at least 1 but was " + value, fix);
		}
	}

	/**
	 * The stores of {@code ratelimit.stores.<store>.*}, for rules that name one; closed at shutdown. Without any, the
	 * store is the application's Redis alone.
	 */
	@Bean(destroyMethod = "close")
	NamedRedisStores rateLimitNamedStores(RateLimitProperties properties) {
		return new NamedRedisStores(properties, batching(properties.getRedis().getBatch()));
	}

	@Bean
	@ConditionalOnMissingBean(RateLimitStore.class)
	RateLimitStore rateLimitStore(LettuceConnectionFactory connectionFactory, RateLimitProperties properties,
			Environment environment, ObjectProvider<RedisRateLimitStoreBuilderCustomizer> customizers,
			NamedRedisStores rateLimitNamedStores) {
		if (properties.getRedis().getTimeout().isNegative() || properties.getRedis().getTimeout().isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.redis.timeout", "must be positive",
					"Set it to how long a rate limit decision may wait for Redis, e.g. 100ms");
		}
		RedisRateLimitStoreBuilder builder = new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(connectionFactory), properties.getKeyPrefix())
			.timeout(properties.getRedis().getTimeout())
			.batching(batching(properties.getRedis().getBatch()))
			// a static master/replica factory does not tell its servers, so it cannot be copied
			.ownConnection(properties.getRedis().isOwnConnection()
					&& !environment.containsProperty("spring.data.redis.masterreplica.nodes"));
		customizers.orderedStream().forEach((customizer) -> customizer.customize(builder));
		try {
			RedisRateLimitStore store = builder.build();
			logger.info("Rate limits are kept in Redis (" + where(connectionFactory) + "), key prefix '"
					+ properties.getKeyPrefix() + "'");
			return rateLimitNamedStores.isEmpty() ? store : rateLimitNamedStores.routing(store);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException("ratelimit.key-prefix", ex.getMessage(),
					"Use a short prefix such as 'rl'");
		}
	}

}
