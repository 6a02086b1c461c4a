package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncListener;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Metrics of local decisions ({@code sync: local}): {@code ratelimit.sync.unsynchronized} (units admitted by this
 * instance that Redis has not acknowledged yet), {@code ratelimit.sync.views} (keys with a local view),
 * {@code ratelimit.sync.lag} (seconds since the last flush Redis answered, while units wait; 0 when none does),
 * {@code ratelimit.sync.flush} (a timer of flush calls, tagged {@code outcome}: synced or failed) and
 * {@code ratelimit.sync.flush.entries} (G-counter entries per flush call).
 */
public class RateLimitSyncMetrics implements SyncListener {

	private final Timer synced;

	private final Timer failed;

	private final DistributionSummary entries;

	private final LongSupplier nanoTime;

	/** Held here: a gauge holds its object only weakly. */
	private final Supplier<@Nullable LocalSyncStore> store;

	private volatile long lastSyncedNanos;

	/**
	 * @param registry where to register
	 * @param store the store of the local views, looked up when a gauge is read ({@code null} while there is none)
	 * @param nanoTime the time for the lag
	 */
	public RateLimitSyncMetrics(MeterRegistry registry, Supplier<@Nullable LocalSyncStore> store, LongSupplier nanoTime) {
		this.nanoTime = nanoTime;
		this.store = store;
		this.lastSyncedNanos = nanoTime.getAsLong();
		this.synced = flushTimer(registry, "synced");
		this.failed = flushTimer(registry, "failed");
		this.entries = DistributionSummary.builder("ratelimit.sync.flush.entries")
			.description("G-counter entries (keys and windows) per flush call of local views")
			.register(registry);
		Gauge.builder("ratelimit.sync.unsynchronized", this, (m) -> m.read(LocalSyncStore::unsynchronized))
			.description("Units admitted from local views that Redis has not acknowledged yet")
			.register(registry);
		Gauge.builder("ratelimit.sync.views", this, (m) -> m.read(LocalSyncStore::views))
			.description("Keys this instance decides from a local view")
			.register(registry);
		Gauge.builder("ratelimit.sync.lag", this, RateLimitSyncMetrics::lagSeconds)
			.description("Seconds since Redis last answered a flush, while admitted units wait for one")
			.baseUnit("seconds")
			.register(registry);
	}

	private static Timer flushTimer(MeterRegistry registry, String outcome) {
		return Timer.builder("ratelimit.sync.flush")
			.description("Flush calls of local views to Redis")
			.tag("outcome", outcome)
			.register(registry);
	}

	private double read(ToLongFunction<LocalSyncStore> value) {
		LocalSyncStore current = this.store.get();
		return (current != null) ? value.applyAsLong(current) : 0;
	}

	private double lagSeconds() {
		LocalSyncStore current = this.store.get();
		if (current == null || current.unsynchronized() == 0) {
			return 0;
		}
		return (this.nanoTime.getAsLong() - this.lastSyncedNanos) / (double) TimeUnit.SECONDS.toNanos(1);
	}

	@Override
	public void onFlush(int entries, Duration took, @Nullable Throwable failure) {
		(failure == null ? this.synced : this.failed).record(took);
		this.entries.record(entries);
		if (failure == null) {
			this.lastSyncedNanos = this.nanoTime.getAsLong();
		}
	}

}
