package dev.ratelimit.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/** Finds the caller's observation of a reactive chain; loaded only where Reactor is. */
public final class ReactorObservations {

	private ReactorObservations() {
	}

	/**
	 * Returns the observation that a reactive chain's subscriber put in its context (WebFlux's HTTP server observation,
	 * for a web filter), or {@code null}.
	 * @param context the subscriber's context
	 * @return the observation, or {@code null}
	 */
	public static @Nullable Observation current(ContextView context) {
		// the key is a compile-time constant: the accessor class (and context-propagation) need not be present
		return context.getOrDefault(ObservationThreadLocalAccessor.KEY, null);
	}

}
