package dev.ratelimit.actuate;

import java.util.function.ToDoubleFunction;

import dev.ratelimit.adaptive.AdaptiveConcurrencyLimit;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Gauges of the adaptive concurrency limits, tagged by rule: {@code ratelimit.adaptive.limit} (the current limit)
 * and {@code ratelimit.concurrency.in.flight} (the requests in progress under it); and their decisions counted in
 * {@code ratelimit.requests} ({@code rule}, {@code outcome}: allowed, denied, shadow_denied) like every rule's.
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
			requests(registry, limit, rule, "allowed", AdaptiveConcurrencyLimit::allowed);
			requests(registry, limit, rule, "denied", AdaptiveConcurrencyLimit::denied);
			requests(registry, limit, rule, "shadow_denied", AdaptiveConcurrencyLimit::shadowDenied);
		}
	}

	private static void requests(MeterRegistry registry, AdaptiveConcurrencyLimit limit, String rule, String outcome,
			ToDoubleFunction<AdaptiveConcurrencyLimit> count) {
		FunctionCounter.builder("ratelimit.requests", limit, count)
			.description("Rate limit checks by rule and outcome")
			.tag("rule", rule)
			.tag("outcome", outcome)
			.register(registry);
	}

}
