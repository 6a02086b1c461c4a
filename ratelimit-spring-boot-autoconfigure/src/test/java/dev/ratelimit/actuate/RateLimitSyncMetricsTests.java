package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncSettings;
import dev.ratelimit.test.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gauges read the local views as they stand, and each flush call is timed by outcome with its entries counted.
 */
class RateLimitSyncMetricsTests {

	@Test
	void gaugesFollowTheViewsAndFlushesAreTimedByOutcome() {
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		MutableClock clock = MutableClock.atRealisticEpoch();
		AtomicLong nanos = new AtomicLong();
		RateLimitPolicy policy = RateLimitPolicy.of("hot", Algorithm.GCRA, 100, Duration.ofSeconds(1));
		LocalRateLimitStore shared = new LocalRateLimitStore(100, clock);
		RateLimitSyncMetrics[] metrics = new RateLimitSyncMetrics[1];
		LocalSyncStore[] store = new LocalSyncStore[1];
		metrics[0] = new RateLimitSyncMetrics(registry, () -> store[0], nanos::get);
		store[0] = new LocalSyncStore(shared, shared, (name) -> new SyncSettings(Duration.ofMillis(100), 50), 100,
				clock::micros, nanos::get);
		// the store made in a test calls no listener of its own: feed the metrics what a flush tells them
		store[0].evaluate(List.of(RateLimitCheck.of(policy, "a", 3)));
		metrics[0].onFlush(1, Duration.ofMillis(2), null);
		assertThat(registry.get("ratelimit.sync.unsynchronized").gauge().value()).isEqualTo(3);
		assertThat(registry.get("ratelimit.sync.views").gauge().value()).isEqualTo(1);
		nanos.addAndGet(Duration.ofSeconds(2).toNanos());
		assertThat(registry.get("ratelimit.sync.lag").gauge().value()).isEqualTo(2.0);
		metrics[0].onFlush(4, Duration.ofMillis(5), new IllegalStateException("down"));
		assertThat(registry.get("ratelimit.sync.flush").tag("outcome", "synced").timer().count()).isEqualTo(1);
		assertThat(registry.get("ratelimit.sync.flush").tag("outcome", "failed").timer().count()).isEqualTo(1);
		assertThat(registry.get("ratelimit.sync.flush.entries").summary().totalAmount()).isEqualTo(5);
		store[0].flushAll().join();
		assertThat(registry.get("ratelimit.sync.unsynchronized").gauge().value()).isZero();
		assertThat(registry.get("ratelimit.sync.lag").gauge().value()).isZero();
		store[0].close();
	}

}
