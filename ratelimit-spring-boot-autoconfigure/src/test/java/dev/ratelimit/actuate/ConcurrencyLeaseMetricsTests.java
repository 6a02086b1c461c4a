package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The metrics of concurrency rules: this instance's slots in flight, and slots acquired, released and reclaimed after
 * they expired, counted through either kind of limiter (a plain store's, or the resilient one over Redis).
 */
class ConcurrencyLeaseMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final LocalRateLimitStore store = new LocalRateLimitStore(1_000, this.clock);

	private final RateLimitPolicy uploads = RateLimitPolicy.concurrency("uploads", 4, Duration.ofSeconds(10));

	enum Limiter {

		STORE((tests) -> new StoreRateLimiter(tests.store, tests.metrics)),

		RESILIENT((tests) -> ResilientRateLimiter.builder(tests.store).listener(tests.metrics).build());

		private final Function<ConcurrencyLeaseMetricsTests, RateLimiter> factory;

		Limiter(Function<ConcurrencyLeaseMetricsTests, RateLimiter> factory) {
			this.factory = factory;
		}

	}

	private final RateLimitMetrics metrics = new RateLimitMetrics(this.registry, 0.2, () -> StoreState.LOCAL);

	@ParameterizedTest
	@EnumSource(Limiter.class)
	void slotsInFlightAreThisInstancesAcquiredAndNotYetReleased(Limiter kind) {
		RateLimiter limiter = kind.factory.apply(this);
		Lease first = acquire(limiter, 1);
		this.clock.advance(Duration.ofSeconds(5));
		Lease second = acquire(limiter, 2);
		assertThat(inFlight()).isEqualTo(3);
		assertThat(counter("ratelimit.concurrency.leases.acquired")).isEqualTo(3);

		// the first lease expires while the second is held: the next admission reclaims its slot
		this.clock.advance(Duration.ofSeconds(6));
		Lease third = acquire(limiter, 1);
		assertThat(counter("ratelimit.concurrency.leases.expired")).isEqualTo(1);
		assertThat(inFlight()).as("this instance still thinks the first is held until it lets it go").isEqualTo(4);

		limiter.release(List.of(second));
		assertThat(counter("ratelimit.concurrency.leases.released")).isEqualTo(2);
		assertThat(inFlight()).isEqualTo(2);
		limiter.release(List.of(first));
		assertThat(counter("ratelimit.concurrency.leases.released")).as("it had expired: nothing was given back")
			.isEqualTo(2);
		assertThat(inFlight()).isEqualTo(1);
		limiter.release(List.of(third));
		assertThat(inFlight()).isZero();
		assertThat(counter("ratelimit.concurrency.leases.released")).isEqualTo(3);
		assertThat(this.registry.getMeters().stream().filter((meter) -> meter.getId().getName()
			.startsWith("ratelimit.concurrency")).map(Meter::getId).flatMap((id) -> id.getTags().stream())
			.map(Tag::getKey)).as("tagged by rule only, never by key").containsOnly("rule");
	}

	@ParameterizedTest
	@EnumSource(Limiter.class)
	void aDeniedRequestAcquiresNothing(Limiter kind) {
		RateLimiter limiter = kind.factory.apply(this);
		acquire(limiter, 4);
		Verdict denied = limiter.evaluate(List.of(RateLimitCheck.of(this.uploads, "alice")));
		assertThat(denied.allowed()).isFalse();
		assertThat(counter("ratelimit.concurrency.leases.acquired")).isEqualTo(4);
		assertThat(inFlight()).isEqualTo(4);
		assertThat(this.registry.get("ratelimit.requests").tag("rule", "uploads").tag("outcome", "denied").counter()
			.count()).isOne();
	}

	private Lease acquire(RateLimiter limiter, long cost) {
		Verdict verdict = limiter.evaluate(List.of(RateLimitCheck.of(this.uploads, "alice", cost)));
		assertThat(verdict.allowed()).isTrue();
		return verdict.leases().get(0);
	}

	private double inFlight() {
		return this.registry.get("ratelimit.concurrency.in.flight").tag("rule", "uploads").gauge().value();
	}

	private double counter(String name) {
		return this.registry.get(name).tag("rule", "uploads").counter().count();
	}

}
