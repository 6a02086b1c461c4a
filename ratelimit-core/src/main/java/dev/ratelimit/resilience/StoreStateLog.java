package dev.ratelimit.resilience;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.store.StoreState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Logs at WARN when the shared store becomes unavailable and when it recovers: one line each per outage, and at most
 * one outage every {@code interval}. An outage that begins sooner after a logged one is not logged (neither its start
 * nor its end) but counted in the next line that is, so a flapping store cannot flood the log. In a Redis Cluster,
 * whose masters have a circuit breaker each, every master's outages are logged (and throttled) apart, naming the
 * master. Logged under the category of {@link ResilientRateLimiter}.
 */
final class StoreStateLog implements RateLimitListener {

	private static final Log logger = LogFactory.getLog(ResilientRateLimiter.class);

	private final LongSupplier nanoTime;

	private final long intervalNanos;

	/** The throttle of each node, by its description; {@code ""} for a store on one server. */
	private final Map<String, Throttle> throttles = new HashMap<>();

	/**
	 * @param nanoTime the monotonic time source
	 * @param intervalNanos the least time between the starts of two logged outages (of one node)
	 */
	StoreStateLog(LongSupplier nanoTime, long intervalNanos) {
		this.nanoTime = nanoTime;
		this.intervalNanos = intervalNanos;
	}

	@Override
	public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
		nodeChanged("", previous, current, cause);
	}

	/**
	 * Logs a change of who decides for one node's keys.
	 * @param node the node's description, {@code ""} for a store on one server
	 * @param previous who decided until now
	 * @param current who decides from now on
	 * @param cause the last failure when it became unavailable
	 */
	synchronized void nodeChanged(String node, StoreState previous, StoreState current, @Nullable Throwable cause) {
		long now = this.nanoTime.getAsLong();
		Throttle throttle = this.throttles.computeIfAbsent(node, (key) -> new Throttle());
		String store = node.isEmpty() ? "Rate limit store" : "Rate limit store node " + node;
		if (current == StoreState.FALLBACK) {
			throttle.outageStartNanos = now;
			throttle.outageLogged = !throttle.logged || now - throttle.lastLoggedNanos >= this.intervalNanos;
			if (!throttle.outageLogged) {
				throttle.unloggedOutages++;
				return;
			}
			throttle.logged = true;
			throttle.lastLoggedNanos = now;
			if (logger.isWarnEnabled()) {
				logger.warn(store + " unavailable (" + reason(cause) + "); rules follow their on-store-failure mode"
						+ " (local, allow or deny)" + (node.isEmpty() ? "" : " for requests with keys on it")
						+ unlogged(throttle.unloggedOutages));
			}
			throttle.unloggedOutages = 0;
		}
		else if (previous == StoreState.FALLBACK && throttle.outageLogged) {
			throttle.outageLogged = false;
			if (logger.isWarnEnabled()) {
				logger.warn(store + " recovered after " + (now - throttle.outageStartNanos) / 1_000_000
						+ " ms; decisions " + (node.isEmpty() ? "come from it again"
								: "for its keys come from Redis again (from it, or from the replica that took over its"
										+ " slots)"));
			}
		}
	}

	private static String unlogged(int unloggedOutages) {
		return switch (unloggedOutages) {
			case 0 -> "";
			case 1 -> ". 1 more outage since the previous message began too soon after it to be logged";
			default -> ". " + unloggedOutages
					+ " more outages since the previous message began too soon after it to be logged";
		};
	}

	private static String reason(@Nullable Throwable cause) {
		if (cause == null) {
			return "its circuit breaker opened without a failed call, e.g. forced open";
		}
		return (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getName();
	}

	/** What the log remembers of one node's outages. */
	private static final class Throttle {

		private boolean logged;

		private long lastLoggedNanos;

		private boolean outageLogged;

		private long outageStartNanos;

		private int unloggedOutages;

	}

}
