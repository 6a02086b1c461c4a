package dev.ratelimit.observation;

import io.micrometer.common.KeyValues;

/**
 * The default names and tags of the waits for reserved slots: {@code ratelimit.slot.wait}, tagged with the rules, the
 * algorithms and the caller. (Not {@code ratelimit.wait}: that is the per-rule timer the metrics have kept since
 * before observations.)
 */
public class DefaultRateLimitWaitObservationConvention extends DefaultRateLimitObservationConvention {

	/** The name of wait observations, their timer and their spans. */
	public static final String WAIT_NAME = "ratelimit.slot.wait";

	@Override
	public String getName() {
		return WAIT_NAME;
	}

	@Override
	public String getContextualName(RateLimitObservationContext context) {
		return "ratelimit wait";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
		return KeyValues.of(rules(context), algorithm(context), caller(context));
	}

}
