package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStoreException;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.SwitchableStore;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
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

	private final List<StateChange> stateChanges = new CopyOnWriteArrayList<>();

	private final List<Settlement> settled = new CopyOnWriteArrayList<>();

	private final ResilientRateLimiter limiter = ResilientRateLimiter.builder(this.primary)
		.fallbackStore(new LocalRateLimitStore(1_000, this.clock))
		.circuitBreaker(this.breaker)
		.denyCacheMaximumEntries(100)
		.denyCacheMinimumWait(Duration.ofMillis(10))
		.failureModes(this.modes::get)
		.unavailableRetryAfter(Duration.ofSeconds(2))
		.nanoTime(this.nanos::get)
		.listener(new RateLimitListener() {

			@Override
			public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
				ResilientRateLimiterTests.this.stateChanges.add(new StateChange(previous, current, cause));
			}

			@Override
			public void onSettle(List<Settlement> settled) {
				ResilientRateLimiterTests.this.settled.addAll(settled);
			}

		})
		.build();

	@AfterEach
	void stopProbes() {
		this.limiter.close();
	}

	/**
	 * A request admitted in the shared store that cost more than its estimate is charged there into debt: the next
	 * request is denied, and the listener is told.
	 */
	@Test
	void settleChargesInTheSharedStoreWhileItAnswers() {
		Verdict admitted = this.limiter.evaluate(RateLimitCheck.of(this.local, "a"));
		Settlement settlement = new Settlement(admitted.consumptions().get(0), 3);
		assertThat(this.limiter.settle(List.of(settlement))).singleElement()
			.satisfies((decision) -> assertThat(decision.allowed()).as("in debt").isFalse());
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.local, "a")).allowed()).isFalse();
		assertThat(this.settled).containsExactly(settlement);
		assertThat(this.limiter.state()).isEqualTo(StoreState.REDIS);
	}

	/** While the shared store fails, the fallback memory decides, and settles: its debt denies there. */
	@Test
	void settleChargesInTheFallbackMemoryWhileTheStoreFails() {
		this.primary.setFailing(true);
		// two failed calls open the circuit
		this.limiter.evaluate(RateLimitCheck.of(this.local, "b"));
		Verdict admitted = this.limiter.evaluate(RateLimitCheck.of(this.local, "a"));
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.limiter.settleAsync(List.of(new Settlement(admitted.consumptions().get(0), 3))).join())
			.singleElement()
			.satisfies((decision) -> assertThat(decision.allowed()).as("in debt").isFalse());
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.local, "a")).allowed()).isFalse();
	}

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
	void distinctRulesAreEnforcedInMemoryWhileTheStoreFailsAndADeniedValueDeniesNoSeenOne() {
		RateLimitPolicy usernames = RateLimitPolicy.of("local", Algorithm.DISTINCT, 2, Duration.ofHours(1));
		this.primary.setFailing(true);
		assertThat(this.limiter.evaluate(RateLimitCheck.distinct(usernames, "10.0.0.1", "u1", false)).allowed()).isTrue();
		assertThat(this.limiter.evaluate(RateLimitCheck.distinct(usernames, "10.0.0.1", "u2", false)).allowed()).isTrue();
		Verdict third = this.limiter.evaluate(RateLimitCheck.distinct(usernames, "10.0.0.1", "u3", false));
		assertThat(third.allowed()).isFalse();
		assertThat(third.storeUnavailable()).isFalse();
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.limiter.evaluate(RateLimitCheck.distinct(usernames, "10.0.0.1", "u3", false)).allowed()).isFalse();
		assertThat(this.limiter.evaluate(RateLimitCheck.distinct(usernames, "10.0.0.1", "u1", false)).allowed())
			.as("seen in the hour, whatever the deny cache remembers of u3")
			.isTrue();
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

	@Test
	void aFailureWhileTheBreakerIsClosedFallsBackForThatRequestOnlyAndTheStoreStillDecides() {
		for (int i = 0; i < 3; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.closed, "before-" + i));
		}
		this.primary.setFailing(true);
		Verdict failed = this.limiter.evaluate(RateLimitCheck.of(this.closed, "a"));
		assertThat(failed.storeUnavailable()).as("the request whose call failed follows its rule's mode").isTrue();
		assertThat(this.breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
		assertThat(this.limiter.state()).as("one failure in four calls does not open the breaker")
			.isEqualTo(StoreState.REDIS);
		this.primary.setFailing(false);
		int calls = this.primary.calls();
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.closed, "a")).allowed()).isTrue();
		assertThat(this.primary.calls()).as("the next request asks the store").isEqualTo(calls + 1);
		assertThat(this.stateChanges).isEmpty();
	}

	@Test
	void becomingUnavailableAndRecoveringArePublishedOnceEachTheFirstWithTheFailure() {
		this.primary.setFailing(true);
		for (int i = 0; i < 5; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "a"));
		}
		assertThat(this.stateChanges).singleElement().satisfies((change) -> {
			assertThat(change.previous()).isEqualTo(StoreState.REDIS);
			assertThat(change.current()).isEqualTo(StoreState.FALLBACK);
			assertThat(change.cause()).isInstanceOf(RateLimitStoreException.class).hasMessage("store is down");
		});
		this.primary.setFailing(false);
		this.clock.advance(Duration.ofMillis(201));
		await(() -> {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "a"));
			return this.limiter.state() == StoreState.REDIS;
		});
		assertThat(this.stateChanges).hasSize(2).last()
			.isEqualTo(new StateChange(StoreState.FALLBACK, StoreState.REDIS, null));
	}

	@Test
	void whoDecidesIsTheBreakersStateWhoeverMovesIt() {
		this.breaker.transitionToForcedOpenState();
		assertThat(this.limiter.state()).isEqualTo(StoreState.FALLBACK);
		assertThat(this.limiter.circuitState()).isEqualTo(CircuitBreaker.State.FORCED_OPEN);
		int calls = this.primary.calls();
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.closed, "a")).storeUnavailable()).isTrue();
		assertThat(this.primary.calls()).as("no store call, not even a probe, while forced open").isEqualTo(calls);
		this.breaker.transitionToDisabledState();
		assertThat(this.limiter.state()).as("a disabled breaker permits every call").isEqualTo(StoreState.REDIS);
		assertThat(this.limiter.evaluate(RateLimitCheck.of(this.closed, "a")).allowed()).isTrue();
		assertThat(this.primary.calls()).isEqualTo(calls + 1);
		assertThat(this.stateChanges).containsExactly(
				new StateChange(StoreState.REDIS, StoreState.FALLBACK, null),
				new StateChange(StoreState.FALLBACK, StoreState.REDIS, null));
	}

	@Test
	void aListenerThatFailsOnAStateChangeFailsNoRequest() {
		try (ResilientRateLimiter failingListener = ResilientRateLimiter.builder(this.primary)
			.circuitBreaker(this.breaker)
			.listener(new RateLimitListener() {

				@Override
				public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
					throw new IllegalStateException("listener bug");
				}

			})
			.build()) {
			this.primary.setFailing(true);
			for (int i = 0; i < 3; i++) {
				assertThat(failingListener.evaluate(RateLimitCheck.of(this.local, "s" + i)).allowed()).isTrue();
			}
			assertThat(failingListener.state()).isEqualTo(StoreState.FALLBACK);
		}
	}

	private static void await(java.util.function.BooleanSupplier condition) {
		org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(condition::getAsBoolean);
	}

	private record StateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
	}

}
