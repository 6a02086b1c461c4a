package dev.ratelimit.resilience;

import java.util.Map;

import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * What health, metrics and the {@code ratelimits} endpoint show about who decides, read without knowing which
 * {@link dev.ratelimit.RateLimiter} the application uses. The {@link ResilientRateLimiter} is one; without one
 * ({@code ratelimit.store=local}, or a limiter of the application's own) it is {@link #local()}. Changes are also
 * published to {@link dev.ratelimit.RateLimitListener#onStoreStateChange listeners}.
 */
public interface StoreStatus {

	/** Returns who decides right now. */
	StoreState state();

	/** Returns the state of the circuit breaker in front of the shared store, or {@code null} without one. */
	CircuitBreaker.@Nullable State circuitState();

	/**
	 * Returns who decides for each master of a Redis Cluster, by node id: the masters serving keys now. Empty for a
	 * store on one server (standalone Redis, Sentinel), whose one breaker is {@link #circuitState()}.
	 */
	default Map<String, StoreNodeStatus> nodes() {
		return Map.of();
	}

	/** Returns the number of denials remembered by the deny cache (an estimate), 0 without one. */
	long denyCacheSize();

	/** Returns the status of a limiter that decides in this instance's memory only. */
	static StoreStatus local() {
		return LocalStoreStatus.INSTANCE;
	}

}
