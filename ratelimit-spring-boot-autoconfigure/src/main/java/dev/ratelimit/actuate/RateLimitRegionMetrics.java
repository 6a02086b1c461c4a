package dev.ratelimit.actuate;

import java.util.function.ToDoubleFunction;

import dev.ratelimit.region.PeerStatus;
import dev.ratelimit.region.RegionalStore;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Metrics of the replication of {@code scope: global} rules to the other regions, tagged with the peer region's name
 * (from the configuration, so bounded): {@code ratelimit.regions.replication.lag} (seconds since the oldest entry it
 * has not acknowledged was written, 0 when none waits), {@code .pending} (entries waiting for it),
 * {@code .entries} (entries it acknowledged), {@code .failures} (replication calls to it that failed) and
 * {@code .dropped} (entries not kept for it because too many were pending).
 */
public class RateLimitRegionMetrics {

	/** Held here: a gauge holds its object only weakly. */
	private final RegionalStore store;

	/**
	 * @param registry where to register
	 * @param store the regional store
	 */
	public RateLimitRegionMetrics(MeterRegistry registry, RegionalStore store) {
		this.store = store;
		for (PeerStatus peer : store.peers()) {
			String region = peer.region();
			Gauge.builder("ratelimit.regions.replication.lag", this,
					(m) -> m.read(region, (p) -> p.lag().toNanos() / 1e9))
				.description("Seconds since the oldest entry the peer region has not acknowledged was written")
				.baseUnit("seconds")
				.tag("region", region)
				.register(registry);
			Gauge.builder("ratelimit.regions.replication.pending", this, (m) -> m.read(region, PeerStatus::pending))
				.description("Entries of global rules waiting to be shipped to the peer region")
				.tag("region", region)
				.register(registry);
			FunctionCounter.builder("ratelimit.regions.replication.entries", this,
					(m) -> m.read(region, PeerStatus::replicated))
				.description("Entries of global rules the peer region acknowledged")
				.tag("region", region)
				.register(registry);
			FunctionCounter.builder("ratelimit.regions.replication.failures", this,
					(m) -> m.read(region, PeerStatus::failures))
				.description("Replication calls to the peer region that failed")
				.tag("region", region)
				.register(registry);
			FunctionCounter.builder("ratelimit.regions.replication.dropped", this,
					(m) -> m.read(region, PeerStatus::dropped))
				.description("Entries not kept for the peer region because too many were pending")
				.tag("region", region)
				.register(registry);
		}
	}

	private double read(String region, ToDoubleFunction<PeerStatus> value) {
		for (PeerStatus peer : this.store.peers()) {
			if (peer.region().equals(region)) {
				return value.applyAsDouble(peer);
			}
		}
		return 0;
	}

}
