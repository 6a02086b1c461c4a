package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.StoreRateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.StoreFailureMode;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.SwitchableStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The resilience logic on an in-memory store that can be switched to fail; the Redis outage tests prove the same
 * against a real, killed Redis.
 */
class ResilientRateLimiterTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final SwitchableStore primary = new SwitchableStore(new LocalRateLimitStore(1_000, this.clock));

	private final AtomicLong nanos = new AtomicLong();

	private final RateLimitPolicy local = RateLimitPolicy.of("local", Algorithm.GCRA, 2, Duration.ofMinutes(1));

	private final RateLimitPolicy open = RateLimitPolicy.of("open", Algorithm.GCRA, 2, Duration.ofMinutes(1));

	private final RateLimitPolicy closed = RateLimitPolicy.of("closed", Algorithm.GCRA, 2, Duration.ofMinutes(1));

	private final Map<String, StoreFailureMode> modes = Map.of("local", StoreFailureMode.LOCAL, "open",
			StoreFailureMode.ALLOW, "closed", StoreFailureMode.DENY);

	private final CircuitBreaker breaker = CircuitBreaker.of("test", CircuitBreakerConfig.custom()
		.slidingWindowSize(4)
		.minimumNumberOfCalls(2)
		.failureRateThreshold(50)
		.waitDurationInOpenState(Duration.ofMillis(200))
		.permittedNumberOfCallsInHalfOpenState(1)
		.clock(this.clock)
		.build());

	private final ResilientRateLimiter limiter = new ResilientRateLimiter(new StoreRateLimiter(this.primary),
			new StoreRateLimiter(new LocalRateLimitStore(1_000, this.clock)), this.breaker,
			new DenyCache(100, Duration.ofMillis(10), this.nanos::get), this.modes::get, Duration.ofSeconds(2),
			this.nanos::get, Duration.ofSeconds(10), RateLimitListener.NONE);

	@Test
	void localRulesAreEnforcedInMemoryWhileTheStoreFails() {
		this.primary.setFailing(true);
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.local, "a")).allowed()).isTrue();
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.local, "a")).allowed()).isTrue();
		Verdict third = this.limiter.evaluate(RateLimitCheck.of(this.local, "a"));
		assertThat(third.allowed()).isFalse();
		assertThat(third.storeUnavailable()).isFalse();
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
	}

	@Test
	void allowRulesAdmitWhileTheStoreFails() {
		this.primary.setFailing(true);
		for (int i = 0; i < 10; i++) {
			assertThat(this.limiter.evaluate(RateLimitCheck.of(this.open, "a")).allowed()).isTrue();
		}
	}

	@Test
	void denyRulesFailClosedAsStoreUnavailable() {
		this.primary.setFailing(true);
		Verdict verdict = this.limiter
			.evaluate(List.of(RateLimitCheck.of(this.local, "a"), RateLimitCheck.of(this.closed, "a")));
		assertThat(verdict.allowed()).isFalse();
		assertThat(verdict.storeUnavailable()).isTrue();
		assertThat(verdict.retryAfter()).isEqualTo(Duration.ofSeconds(2));
		assertThat(verdict.deniedIndexes()).containsExactly(1);
	}

	@Test
	void openCircuitStopsCallingTheStoreAndProbesBringItBack() {
		this.primary.setFailing(true);
		for (int i = 0; i < 10; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "a"));
		}
		assertThat(this.breaker.getState()).isEqualTo(CircuitBreaker.State.OPEN);
		int callsWhileOpen = this.primary.calls();
		for (int i = 0; i < 10; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "a"));
		}
		assertThat(this.primary.calls()).as("no store calls while open").isEqualTo(callsWhileOpen);
		this.primary.setFailing(false);
		this.limiter.evaluate(RateLimitCheck.of(this.open, "b"));
		assertThat(this.breaker.getState()).as("still open: the wait has not passed on the breaker's clock")
			.isEqualTo(CircuitBreaker.State.OPEN);
		this.clock.advance(Duration.ofMillis(201));
		this.nanos.addAndGet(Duration.ofMillis(201).toNanos());
		// the probe runs on a background thread: await its outcome, no time needs to pass
		await(() -> {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "b"));
			return this.limiter.state() == StoreState.REDIS;
		});
		assertThat(this.breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
	}

	@Test
	void denyCacheAnswersRepeatedDenialsWithoutTheStoreUntilTheWaitEnds() {
		RateLimitCheck check = RateLimitCheck.of(this.local, "hot");
		this.limiter.evaluate(check);
		this.limiter.evaluate(check);
		Verdict denied = this.limiter.evaluate(check);
		assertThat(denied.allowed()).isFalse();
		int calls = this.primary.calls();
		this.nanos.addAndGet(Duration.ofSeconds(10).toNanos());
		Verdict remembered = this.limiter.evaluate(check);
		assertThat(this.primary.calls()).isEqualTo(calls);
		assertThat(remembered.allowed()).isFalse();
		assertThat(remembered.retryAfter()).isEqualTo(denied.retryAfter().minusSeconds(10));
		assertThat(remembered.decisions().get(0).remaining()).isZero();
		this.nanos.addAndGet(denied.retryAfter().toNanos());
		this.clock.advance(denied.retryAfter());
		assertThat(this.limiter.evaluate(check).allowed()).isTrue();
		assertThat(this.primary.calls()).isEqualTo(calls + 1);
	}

	@Test
	void shortWaitsAndAllowedRequestsAreNotRemembered() {
		RateLimitPolicy fast = RateLimitPolicy.of("fast", Algorithm.GCRA, 1000, Duration.ofSeconds(1)).withBurst(1);
		RateLimitCheck check = RateLimitCheck.of(fast, "x");
		this.limiter.evaluate(check);
		Verdict denied = this.limiter.evaluate(check);
		assertThat(denied.retryAfter()).isLessThan(Duration.ofMillis(10));
		int calls = this.primary.calls();
		this.limiter.evaluate(check);
		assertThat(this.primary.calls()).isEqualTo(calls + 1);
		assertThat(this.limiter.denyCache().size()).isZero();
	}

	private static void await(java.util.function.BooleanSupplier condition) {
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(condition::getAsBoolean);
	}

}
