package dev.ratelimit.actuate;

import dev.ratelimit.adaptive.AdaptiveConcurrencyLimit;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges of the adaptive concurrency limits, tagged by rule: {@code ratelimit.adaptive.limit} (the current limit)
 * and {@code ratelimit.concurrency.in.flight} (the requests in progress under it).
 */
public class AdaptiveConcurrencyMetrics implements MeterBinder {

	private final AdaptiveConcurrencyLimits limits;

	/**
	 * @param limits the adaptive concurrency limits
	 */
	public AdaptiveConcurrencyMetrics(AdaptiveConcurrencyLimits limits) {
		this.limits = limits;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		for (AdaptiveConcurrencyLimit limit : this.limits.all()) {
			String rule = limit.rule().name();
			Gauge.builder("ratelimit.adaptive.limit", limit, AdaptiveConcurrencyLimit::limit)
				.description("Current adaptive concurrency limit of this instance")
				.tag("rule", rule)
				.register(registry);
			Gauge.builder("ratelimit.concurrency.in.flight", limit, AdaptiveConcurrencyLimit::inFlight)
				.description("Requests in progress under a concurrency limit in this instance")
				.tag("rule", rule)
				.register(registry);
		}
	}

}
