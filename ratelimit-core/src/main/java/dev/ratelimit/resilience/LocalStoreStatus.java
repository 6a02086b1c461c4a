package dev.ratelimit.resilience;

import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The status of a limiter without a shared store: {@link StoreState#LOCAL}, no circuit breaker, no deny cache.
 */
enum LocalStoreStatus implements StoreStatus {

	INSTANCE;

	@Override
	public StoreState state() {
		return StoreState.LOCAL;
	}

	@Override
	public CircuitBreaker.@Nullable State circuitState() {
		return null;
	}

	@Override
	public long denyCacheSize() {
		return 0;
	}

}
