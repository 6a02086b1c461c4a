package dev.ratelimit.resilience;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.store.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;

/**
 * The circuit breaker in front of one node of the shared store (the whole store when it is one server), and who
 * decides for that node's keys as the breaker says: there is no other copy of the state, so it cannot disagree with
 * the breaker, whoever moves it (requests, the probe, or an operator through Resilience4j's own endpoint). Closed
 * (also disabled or metrics-only, which permit every call) is {@link StoreState#REDIS}; open, half open and forced
 * open are {@link StoreState#FALLBACK}. Each change is reported to {@link StoreGuards}, on the thread whose call moved
 * the breaker.
 */
final class NodeGuard {

	private final String node;

	private final String description;

	private final CircuitBreaker circuitBreaker;

	/** Whether a background probe of this node is under way. */
	private final AtomicBoolean probing = new AtomicBoolean();

	/** The last failure the breaker recorded: the cause reported when it opens. */
	private volatile @Nullable Throwable lastFailure;

	/** Set when the node stopped serving keys: its breaker's later events are not this guard's any more. */
	private volatile boolean retired;

	/**
	 * Subscribes to the breaker's events.
	 * @param node the node's id ({@code ""} for a store on one server)
	 * @param description the node as shown in logs and health
	 * @param circuitBreaker the breaker
	 * @param changes told of every change of who decides for the node's keys
	 */
	NodeGuard(String node, String description, CircuitBreaker circuitBreaker, Changes changes) {
		this.node = node;
		this.description = description;
		this.circuitBreaker = circuitBreaker;
		// the breaker publishes a call's error before the transition that the error causes
		circuitBreaker.getEventPublisher().onError((event) -> this.lastFailure = event.getThrowable())
			.onStateTransition((event) -> {
				StoreState previous = of(event.getStateTransition().getFromState());
				StoreState current = of(event.getStateTransition().getToState());
				if (previous != current && !this.retired) {
					Throwable cause = (current == StoreState.FALLBACK) ? this.lastFailure : null;
					this.lastFailure = null;
					changes.changed(this, previous, current, cause);
				}
			});
	}

	/** Returns who decides for this node's keys right now. */
	StoreState state() {
		return of(this.circuitBreaker.getState());
	}

	String node() {
		return this.node;
	}

	String description() {
		return this.description;
	}

	CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	AtomicBoolean probing() {
		return this.probing;
	}

	/** Stops reporting the breaker's changes: the node serves no keys any more. */
	void retire() {
		this.retired = true;
	}

	/** Returns who decides in a state of the breaker. */
	static StoreState of(CircuitBreaker.State state) {
		return switch (state) {
			case CLOSED, DISABLED, METRICS_ONLY -> StoreState.REDIS;
			case OPEN, HALF_OPEN, FORCED_OPEN -> StoreState.FALLBACK;
		};
	}

	/** Told of each change of who decides for a node's keys. */
	@FunctionalInterface
	interface Changes {

		void changed(NodeGuard guard, StoreState previous, StoreState current, @Nullable Throwable cause);

	}

}
