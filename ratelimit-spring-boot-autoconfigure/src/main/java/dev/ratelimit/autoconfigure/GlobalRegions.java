package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.region.PeerStatus;
import dev.ratelimit.region.RegionalStore;

import org.springframework.beans.factory.DisposableBean;

/**
 * The regional store of the rules with {@code scope: global}, as the auto-configured limiter uses it: a bean of its
 * own (rather than a second {@code RateLimitStore} bean beside the shared store) that replicates what is pending and
 * closes the connections to the other regions' Redis when the application stops.
 */
public final class GlobalRegions implements DisposableBean {

	private final RegionalStore store;

	private final List<AutoCloseable> resources;

	GlobalRegions(RegionalStore store, List<AutoCloseable> resources) {
		this.store = store;
		this.resources = List.copyOf(resources);
	}

	/** Returns the store that decides global rules on the regions' merged entries and the others as before. */
	public RegionalStore store() {
		return this.store;
	}

	/** Returns how replication to each other region stands. */
	public List<PeerStatus> peers() {
		return this.store.peers();
	}

	/** Replicates what is pending (bounded by the replication timeout), then closes the peers' connections. */
	@Override
	public void destroy() throws Exception {
		this.store.close();
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

}
