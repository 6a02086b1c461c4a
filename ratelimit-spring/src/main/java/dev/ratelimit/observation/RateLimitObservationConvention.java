package dev.ratelimit.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names and tags the observations of rate limit decisions. Declare a bean of this type to replace
 * {@link DefaultRateLimitObservationConvention} (or extend it); keep every low-cardinality value bounded: never a
 * subject, a key or anything else a client sends.
 */
public interface RateLimitObservationConvention extends ObservationConvention<RateLimitObservationContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof RateLimitObservationContext;
	}

}
