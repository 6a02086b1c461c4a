package dev.ratelimit.resilience;

import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.StoreState;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Logs at WARN when the shared store becomes unavailable and when it recovers: one line each per outage, and at most
 * one outage every {@code interval}. An outage that begins sooner after a logged one is not logged (neither its start
 * nor its end) but counted in the next line that is, so a flapping store cannot flood the log. Logged under the
 * category of {@link ResilientRateLimiter}.
 */
final class StoreStateLog implements RateLimitListener {

	private static final Log logger = LogFactory.getLog(ResilientRateLimiter.class);

	private final LongSupplier nanoTime;

	private final long intervalNanos;

	private boolean logged;

	private long lastLoggedNanos;

	private boolean outageLogged;

	private long outageStartNanos;

	private int unloggedOutages;

	/**
	 * @param nanoTime the monotonic time source
	 * @param intervalNanos the least time between the starts of two logged outages
	 */
	StoreStateLog(LongSupplier nanoTime, long intervalNanos) {
		this.nanoTime = nanoTime;
		this.intervalNanos = intervalNanos;
	}

	@Override
	public synchronized void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
		long now = this.nanoTime.getAsLong();
		if (current == StoreState.FALLBACK) {
			this.outageStartNanos = now;
			this.outageLogged = !this.logged || now - this.lastLoggedNanos >= this.intervalNanos;
			if (!this.outageLogged) {
				this.unloggedOutages++;
				return;
			}
			this.logged = true;
			this.lastLoggedNanos = now;
			if (logger.isWarnEnabled()) {
				logger.warn("Rate limit store unavailable (" + reason(cause)
						+ "); rules follow their on-store-failure mode (local, allow or deny)" + unlogged());
			}
			this.unloggedOutages = 0;
		}
		else if (previous == StoreState.FALLBACK && this.outageLogged) {
			this.outageLogged = false;
			if (logger.isWarnEnabled()) {
				logger.warn("Rate limit store recovered after " + (now - this.outageStartNanos) / 1_000_000
						+ " ms; decisions come from it again");
			}
		}
	}

	private String unlogged() {
		return switch (this.unloggedOutages) {
			case 0 -> "";
			case 1 -> ". 1 more outage since the previous message began too soon after it to be logged";
			default -> ". " + this.unloggedOutages
					+ " more outages since the previous message began too soon after it to be logged";
		};
	}

	private static String reason(@Nullable Throwable cause) {
		if (cause == null) {
			return "its circuit breaker opened without a failed call, e.g. forced open";
		}
		return (cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getName();
	}

}
