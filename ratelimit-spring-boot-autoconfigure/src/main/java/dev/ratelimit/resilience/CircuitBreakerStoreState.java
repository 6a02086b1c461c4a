package dev.ratelimit.resilience;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Who decides, as the circuit breaker in front of the shared store says: there is no other copy of the state, so it
 * cannot disagree with the breaker, whoever moves it (requests, the probe, or an operator through Resilience4j's own
 * endpoint). Closed (also disabled or metrics-only, which permit every call) is {@link StoreState#REDIS}; open, half
 * open and forced open are {@link StoreState#FALLBACK}. Each change is published to the listener as
 * {@link RateLimitListener#onStoreStateChange}, on the thread whose call moved the breaker.
 */
final class CircuitBreakerStoreState {

	private static final Log logger = LogFactory.getLog(CircuitBreakerStoreState.class);

	private final CircuitBreaker circuitBreaker;

	private final RateLimitListener listener;

	/** The last failure the breaker recorded: the cause reported when it opens. */
	private volatile @Nullable Throwable lastFailure;

	/**
	 * Subscribes to the breaker's events.
	 * @param circuitBreaker the breaker
	 * @param listener told of every change of who decides
	 */
	CircuitBreakerStoreState(CircuitBreaker circuitBreaker, RateLimitListener listener) {
		this.circuitBreaker = circuitBreaker;
		this.listener = listener;
		// the breaker publishes a call's error before the transition that the error causes
		circuitBreaker.getEventPublisher()
			.onError((event) -> this.lastFailure = event.getThrowable())
			.onStateTransition((event) -> changed(of(event.getStateTransition().getFromState()),
					of(event.getStateTransition().getToState())));
	}

	/** Returns who decides right now. */
	StoreState state() {
		return of(this.circuitBreaker.getState());
	}

	CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	/** Returns who decides in a state of the breaker. */
	static StoreState of(CircuitBreaker.State state) {
		return switch (state) {
			case CLOSED, DISABLED, METRICS_ONLY -> StoreState.REDIS;
			case OPEN, HALF_OPEN, FORCED_OPEN -> StoreState.FALLBACK;
		};
	}

	private void changed(StoreState previous, StoreState current) {
		if (previous == current) {
			return;
		}
		Throwable cause = (current == StoreState.FALLBACK) ? this.lastFailure : null;
		this.lastFailure = null;
		try {
			this.listener.onStoreStateChange(previous, current, cause);
		}
		catch (RuntimeException ex) {
			// the breaker calls this inside a request's or the probe's call: a listener must not fail it
			logger.warn("A rate limit listener failed on a store state change from " + previous + " to " + current, ex);
		}
	}

}
