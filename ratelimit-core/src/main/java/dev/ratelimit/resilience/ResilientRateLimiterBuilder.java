package dev.ratelimit.resilience;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.store.StoreRateLimiter;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.github.resilience4j.circuitbreaker.CircuitBreakerRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Builds a {@link ResilientRateLimiter}. A new builder holds the starter's defaults (those of {@code ratelimit.*}):
 * a circuit breaker that opens when at least half of the last 20 calls (after 5) failed, stays open 1 s and then lets
 * 3 probes through; a deny cache of 10,000 denials with a wait of at least 10 ms; a fallback in this instance's memory
 * of 100,000 subjects; every rule {@code local} on store failure; no listener.
 * <p>
 * The circuit breaker is named {@value #CIRCUIT_BREAKER_NAME}. With a {@link #circuitBreakerRegistry registry} it is
 * taken from there: if the registry already has a breaker or a configuration of that name, that one is used as it
 * is (and the configuration held here does not apply); otherwise the breaker is created in the registry with the
 * configuration held here, so that Resilience4j's own endpoint and metrics see it.
 * <p>
 * For a store whose nodes fail independently (a Redis Cluster, see {@link RateLimitStore#nodes()}) every master gets
 * a breaker of its own, named {@code ratelimit-store-<node id>} (the name of a {@link #circuitBreaker given}
 * breaker, then the node id), with the configuration of that one breaker, created in the registry when there is one
 * and removed from it when the master serves no keys any more (its replica took over).
 */
public final class ResilientRateLimiterBuilder {

	/** The name of the circuit breaker in front of the shared store. */
	public static final String CIRCUIT_BREAKER_NAME = "ratelimit-store";

	private static final Log logger = LogFactory.getLog(ResilientRateLimiterBuilder.class);

	private static final Duration LOG_INTERVAL = Duration.ofSeconds(10);

	private final RateLimitStore store;

	private @Nullable RateLimitStore fallbackStore;

	private Function<String, StoreFailureMode> failureModes = (name) -> StoreFailureMode.LOCAL;

	private CircuitBreakerConfig circuitBreakerConfig = CircuitBreakerConfig.custom()
		.failureRateThreshold(50)
		.slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
		.slidingWindowSize(20)
		.minimumNumberOfCalls(5)
		.waitDurationInOpenState(Duration.ofSeconds(1))
		.permittedNumberOfCallsInHalfOpenState(3)
		.build();

	private @Nullable CircuitBreakerRegistry circuitBreakerRegistry;

	private @Nullable CircuitBreaker circuitBreaker;

	private boolean denyCacheEnabled = true;

	private long denyCacheMaximumEntries = 10_000;

	private Duration denyCacheMinimumWait = Duration.ofMillis(10);

	private @Nullable Duration unavailableRetryAfter;

	private RateLimitListener listener = RateLimitListener.NONE;

	private LongSupplier nanoTime = System::nanoTime;

	ResilientRateLimiterBuilder(RateLimitStore store) {
		this.store = Objects.requireNonNull(store, "store");
	}

	/**
	 * Sets the store that decides while the shared one is unavailable (for rules that fall back to {@code local}).
	 * @param fallbackStore this instance's store
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder fallbackStore(RateLimitStore fallbackStore) {
		this.fallbackStore = Objects.requireNonNull(fallbackStore, "fallbackStore");
		return this;
	}

	/**
	 * Sets each rule's failure mode.
	 * @param failureModes the failure mode by rule (policy) name
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder failureModes(Function<String, StoreFailureMode> failureModes) {
		this.failureModes = Objects.requireNonNull(failureModes, "failureModes");
		return this;
	}

	/**
	 * Replaces the configuration of the circuit breaker.
	 * @param config the configuration
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder circuitBreakerConfig(CircuitBreakerConfig config) {
		this.circuitBreakerConfig = Objects.requireNonNull(config, "config");
		return this;
	}

	/**
	 * Changes the configuration of the circuit breaker, e.g.
	 * {@code builder.circuitBreakerConfig((config) -> config.slowCallDurationThreshold(Duration.ofMillis(50)))}.
	 * @param customizer changes a builder that starts from the current configuration
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder circuitBreakerConfig(Consumer<CircuitBreakerConfig.Builder> customizer) {
		CircuitBreakerConfig.Builder config = CircuitBreakerConfig.from(this.circuitBreakerConfig);
		customizer.accept(config);
		this.circuitBreakerConfig = config.build();
		return this;
	}

	/** Returns the configuration of the circuit breaker as it stands. */
	public CircuitBreakerConfig circuitBreakerConfig() {
		return this.circuitBreakerConfig;
	}

	/**
	 * Takes the circuit breaker from a registry (see the class description), or builds it alone with {@code null}.
	 * @param registry the registry, or {@code null}
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder circuitBreakerRegistry(@Nullable CircuitBreakerRegistry registry) {
		this.circuitBreakerRegistry = registry;
		return this;
	}

	/**
	 * Uses this circuit breaker as it is, instead of one built from the configuration or taken from a registry.
	 * @param circuitBreaker the breaker, or {@code null} to build one
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder circuitBreaker(@Nullable CircuitBreaker circuitBreaker) {
		this.circuitBreaker = circuitBreaker;
		return this;
	}

	/**
	 * Switches the deny cache on or off.
	 * @param enabled whether denials are remembered
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder denyCache(boolean enabled) {
		this.denyCacheEnabled = enabled;
		return this;
	}

	/**
	 * Sets how many denials the deny cache remembers at most.
	 * @param maximumEntries the most remembered denials
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder denyCacheMaximumEntries(long maximumEntries) {
		this.denyCacheMaximumEntries = maximumEntries;
		return this;
	}

	/**
	 * Sets the shortest wait of a denial that the deny cache remembers.
	 * @param minimumWait the shortest wait worth remembering
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder denyCacheMinimumWait(Duration minimumWait) {
		this.denyCacheMinimumWait = Objects.requireNonNull(minimumWait, "minimumWait");
		return this;
	}

	/**
	 * Sets the {@code Retry-After} of requests that fail closed ({@code deny} rules) while the store is unavailable;
	 * by default the circuit breaker's wait in the open state.
	 * @param retryAfter the wait
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder unavailableRetryAfter(Duration retryAfter) {
		this.unavailableRetryAfter = Objects.requireNonNull(retryAfter, "retryAfter");
		return this;
	}

	/**
	 * Sets the listener told of every verdict, store call and change of who decides.
	 * @param listener the listener
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder listener(RateLimitListener listener) {
		this.listener = Objects.requireNonNull(listener, "listener");
		return this;
	}

	/**
	 * Sets the monotonic time source of the deny cache, of the store call timings and of the log throttling.
	 * @param nanoTime the time source, in nanoseconds
	 * @return this builder
	 */
	public ResilientRateLimiterBuilder nanoTime(LongSupplier nanoTime) {
		this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
		return this;
	}

	/** Builds the limiter; close it to stop its background probe thread. */
	public ResilientRateLimiter build() {
		StoreNodes nodes = this.store.nodes();
		// in a Cluster the one breaker is only the model of the masters' breakers: it is not put in the registry
		CircuitBreaker breaker = (nodes != null) ? modelOfNodeBreakers() : circuitBreakerToUse();
		Duration retryAfter = (this.unavailableRetryAfter != null) ? this.unavailableRetryAfter
				: Duration.ofMillis(breaker.getCircuitBreakerConfig().getWaitIntervalFunctionInOpenState().apply(1));
		DenyCache denyCache = this.denyCacheEnabled
				? new DenyCache(this.denyCacheMaximumEntries, this.denyCacheMinimumWait, this.nanoTime) : null;
		RateLimitStore fallbackStore = (this.fallbackStore != null) ? this.fallbackStore
				: new LocalRateLimitStore(100_000, Clock.systemUTC());
		StoreStateLog log = new StoreStateLog(this.nanoTime, LOG_INTERVAL.toNanos());
		StoreGuards guards = (nodes != null)
				? new StoreGuards(nodes, (node) -> nodeBreaker(breaker, node), this::dropNodeBreaker, log, this.listener)
				: new StoreGuards(breaker, log, this.listener);
		// the store's own timeout bounds its calls on both paths: its blocking wait, and the limiter's timer
		return new ResilientRateLimiter(new GuardedStore(new StoreRateLimiter(this.store), guards, this.nanoTime),
				new FallbackDecider(new StoreRateLimiter(fallbackStore), this.failureModes, retryAfter), denyCache,
				this.listener);
	}

	/**
	 * Returns the breaker of one master of a Redis Cluster: named after the breaker the store would have on one
	 * server and the node's id, configured as that breaker is, and taken from the registry when there is one.
	 */
	private CircuitBreaker nodeBreaker(CircuitBreaker template, String node) {
		String name = template.getName() + "-" + node;
		if (this.circuitBreaker == null && this.circuitBreakerRegistry != null) {
			return this.circuitBreakerRegistry.circuitBreaker(name, template.getCircuitBreakerConfig());
		}
		return CircuitBreaker.of(name, template.getCircuitBreakerConfig(), template.getTags());
	}

	/** Forgets the breaker of a master that serves no keys any more. */
	private void dropNodeBreaker(CircuitBreaker breaker) {
		if (this.circuitBreaker == null && this.circuitBreakerRegistry != null) {
			this.circuitBreakerRegistry.remove(breaker.getName());
		}
	}

	private CircuitBreaker modelOfNodeBreakers() {
		if (this.circuitBreaker != null) {
			return this.circuitBreaker;
		}
		CircuitBreakerRegistry registry = this.circuitBreakerRegistry;
		if (registry == null) {
			return CircuitBreaker.of(CIRCUIT_BREAKER_NAME, this.circuitBreakerConfig);
		}
		CircuitBreakerConfig config = registry.find(CIRCUIT_BREAKER_NAME)
			.map(CircuitBreaker::getCircuitBreakerConfig)
			.or(() -> registry.getConfiguration(CIRCUIT_BREAKER_NAME))
			.orElse(this.circuitBreakerConfig);
		if (config != this.circuitBreakerConfig) {
			logger.info("Configuring the circuit breakers '" + CIRCUIT_BREAKER_NAME + "-<node id>' of the Redis"
					+ " Cluster's masters as '" + CIRCUIT_BREAKER_NAME + "' in the application's CircuitBreakerRegistry"
					+ " (ratelimit.circuit-breaker.* does not apply)");
		}
		return CircuitBreaker.of(CIRCUIT_BREAKER_NAME, config);
	}

	private CircuitBreaker circuitBreakerToUse() {
		if (this.circuitBreaker != null) {
			return this.circuitBreaker;
		}
		CircuitBreakerRegistry registry = this.circuitBreakerRegistry;
		if (registry == null) {
			return CircuitBreaker.of(CIRCUIT_BREAKER_NAME, this.circuitBreakerConfig);
		}
		Optional<CircuitBreaker> existing = registry.find(CIRCUIT_BREAKER_NAME);
		if (existing.isPresent()) {
			logger.info("Using the circuit breaker '" + CIRCUIT_BREAKER_NAME + "' of the application's"
					+ " CircuitBreakerRegistry as it is configured there (ratelimit.circuit-breaker.* does not apply)");
			return existing.get();
		}
		if (registry.getConfiguration(CIRCUIT_BREAKER_NAME).isPresent()) {
			logger.info("Configuring the circuit breaker '" + CIRCUIT_BREAKER_NAME + "' by the configuration of that"
					+ " name in the application's CircuitBreakerRegistry (ratelimit.circuit-breaker.* does not apply)");
			return registry.circuitBreaker(CIRCUIT_BREAKER_NAME, CIRCUIT_BREAKER_NAME);
		}
		return registry.circuitBreaker(CIRCUIT_BREAKER_NAME, this.circuitBreakerConfig);
	}

}
