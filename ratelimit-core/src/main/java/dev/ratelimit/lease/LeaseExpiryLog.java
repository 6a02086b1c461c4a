package dev.ratelimit.lease;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.Verdict;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Logs at WARN when an admission reclaims expired concurrency leases: an instance crashed while holding them, or a
 * request outlived its rule's {@code lease-timeout} without renewing, or a release was missed. The line names the
 * rule and the number of slots, never the key (a client's identity has no place in a log line anyone may read). At
 * most one line per rule every {@code interval}: slots reclaimed sooner are counted in the rule's next line.
 */
public final class LeaseExpiryLog implements RateLimitListener {

	private static final Log logger = LogFactory.getLog(LeaseExpiryLog.class);

	private final LongSupplier nanoTime;

	private final long intervalNanos;

	private final Map<String, Pending> pending = new HashMap<>();

	/**
	 * @param nanoTime the monotonic time source
	 * @param intervalNanos the least time between two lines of one rule
	 */
	public LeaseExpiryLog(LongSupplier nanoTime, long intervalNanos) {
		this.nanoTime = nanoTime;
		this.intervalNanos = intervalNanos;
	}

	@Override
	public void onVerdict(Verdict verdict, Source source) {
		for (int i = 0; i < verdict.decisions().size(); i++) {
			long reclaimed = verdict.decisions().get(i).reclaimed();
			if (reclaimed > 0 && verdict.checks().get(i).cost() > 0) {
				reclaimed(verdict.checks().get(i).policy().name(), reclaimed);
			}
		}
	}

	private void reclaimed(String rule, long slots) {
		long total;
		synchronized (this) {
			long now = this.nanoTime.getAsLong();
			Pending state = this.pending.computeIfAbsent(rule, (key) -> new Pending());
			state.slots += slots;
			if (state.logged && now - state.lastLoggedNanos < this.intervalNanos) {
				return;
			}
			state.logged = true;
			state.lastLoggedNanos = now;
			total = state.slots;
			state.slots = 0;
		}
		if (logger.isWarnEnabled()) {
			logger.warn("Concurrency rule '" + rule + "' reclaimed " + total + " expired lease slot"
					+ ((total == 1) ? "" : "s") + ": an instance stopped while holding them, or a request ran longer"
					+ " than the rule's lease-timeout without renewing its lease, or a release was missed");
		}
	}

	private static final class Pending {

		private boolean logged;

		private long lastLoggedNanos;

		private long slots;

	}

}
