package dev.ratelimit.observation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RateLimitObservationsTests {

	private static final RateLimitPolicy LOGIN = RateLimitPolicy.of("login-user", Algorithm.GCRA, 1,
			Duration.ofMinutes(1));

	private static final RateLimitPolicy HOURLY = RateLimitPolicy.of("hourly", Algorithm.FIXED_WINDOW, 100,
			Duration.ofHours(1));

	private final TestObservationRegistry registry = TestObservationRegistry.create();

	/** The contexts of the stopped observations, in the order they stopped. */
	private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

	{
		this.registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				RateLimitObservationsTests.this.stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
	}

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final RateLimiter limiter = new StoreRateLimiter(new LocalRateLimitStore(100, this.clock));

	private StoreState state = StoreState.REDIS;

	private final RateLimitObservations observations = new RateLimitObservations(this.registry, null, "redis",
			() -> this.state);

	@Test
	void eachDecisionIsOneObservationTaggedWithItsRulesOutcomeAlgorithmAndStoreButNotItsSubject() {
		List<RateLimitCheck> checks = List.of(RateLimitCheck.of(LOGIN, "alice@example.com"),
				RateLimitCheck.of(HOURLY, "alice@example.com"));
		assertThat(this.observations.evaluate(this.limiter, checks, "servlet").allowed()).isTrue();
		assertThat(this.observations.evaluate(this.limiter, checks, "servlet").allowed()).isFalse();
		assertThat(this.registry).hasNumberOfObservationsWithNameEqualTo("ratelimit.decision", 2);
		assertThat(this.registry).hasAnObservation((observation) -> observation
			.hasLowCardinalityKeyValue("ratelimit.outcome", "allowed")
			.hasLowCardinalityKeyValue("ratelimit.rules", "login-user,hourly")
			.hasLowCardinalityKeyValue("ratelimit.algorithm", "gcra,fixed-window")
			.hasLowCardinalityKeyValue("ratelimit.denied.by", "none")
			.hasLowCardinalityKeyValue("ratelimit.store", "redis")
			.hasLowCardinalityKeyValue("ratelimit.store.state", "redis")
			.hasLowCardinalityKeyValue("ratelimit.caller", "servlet")
			.hasLowCardinalityKeyValue("error", "none"));
		assertThat(this.registry).hasAnObservation((observation) -> observation
			.hasLowCardinalityKeyValue("ratelimit.outcome", "denied")
			.hasLowCardinalityKeyValue("ratelimit.denied.by", "login-user"));
		assertThat(this.stopped).allSatisfy((context) -> {
			KeyValues all = context.getAllKeyValues();
			assertThat(all.stream().map(KeyValue::getValue)).noneMatch((value) -> value.contains("alice"));
		});
	}

	@Test
	void shadowDenialsWaitsAndFallbacksHaveTheirOwnOutcome() {
		RateLimitCheck shadow = new RateLimitCheck(LOGIN, "bob", 1, true);
		this.observations.evaluate(this.limiter, List.of(shadow), "method");
		this.observations.evaluate(this.limiter, List.of(shadow), "method");
		RateLimitPolicy perSecond = RateLimitPolicy.of("per-second", Algorithm.GCRA, 1, Duration.ofSeconds(1));
		RateLimitCheck waiting = new RateLimitCheck(perSecond, "carol", 1, false, Duration.ofSeconds(5));
		this.observations.evaluate(this.limiter, List.of(waiting), "outbound");
		Verdict waited = this.observations.evaluate(this.limiter, List.of(waiting), "outbound");
		this.state = StoreState.FALLBACK;
		this.observations.evaluate(this.limiter, List.of(RateLimitCheck.of(HOURLY, "dave")), "servlet");
		assertThat(waited.delay()).isPositive();
		assertThat(this.stopped).extracting((context) -> context
			.getLowCardinalityKeyValue("ratelimit.outcome")
			.getValue()).containsExactly("allowed", "shadow-denied", "allowed", "waited", "fallback");
	}

	@Test
	void theWaitForASlotIsItsOwnObservationUnderTheCurrentOne() {
		RateLimitPolicy perSecond = RateLimitPolicy.of("per-second", Algorithm.GCRA, 1, Duration.ofSeconds(1));
		RateLimitCheck waiting = new RateLimitCheck(perSecond, "erin", 1, false, Duration.ofSeconds(5));
		this.observations.evaluate(this.limiter, List.of(waiting), "outbound");
		Verdict waited = this.observations.evaluate(this.limiter, List.of(waiting), "outbound");
		Observation request = Observation.start("http.server.requests", this.registry);
		Observation wait;
		try (Observation.Scope scope = request.openScope()) {
			wait = this.observations.startWait(waited, "outbound", null);
		}
		wait.stop();
		request.stop();
		assertThat(this.registry).hasObservationWithNameEqualTo("ratelimit.slot.wait")
			.that()
			.hasBeenStarted()
			.hasBeenStopped()
			.hasParentObservationEqualTo(request)
			.hasLowCardinalityKeyValue("ratelimit.rules", "per-second")
			.hasHighCardinalityKeyValue("ratelimit.delay.ms", Long.toString(waited.delay().toMillis()));
	}

	@Test
	void anAsynchronousDecisionIsTheChildOfTheGivenParentAndInScopeWhileTheStoreIsCalled() {
		Observation parent = Observation.start("http.server.requests", this.registry);
		Observation[] seenByTheStore = new Observation[1];
		RateLimiter spying = new RateLimiter() {

			@Override
			public Verdict evaluate(List<RateLimitCheck> checks) {
				seenByTheStore[0] = RateLimitObservationsTests.this.registry.getCurrentObservation();
				return RateLimitObservationsTests.this.limiter.evaluate(checks);
			}

			@Override
			public void reset(RateLimitPolicy policy, String subject) {
			}

		};
		CompletableFuture<Verdict> verdict = this.observations.evaluateAsync(spying,
				List.of(RateLimitCheck.of(LOGIN, "frank")), "webflux", parent);
		parent.stop();
		assertThat(verdict.join().allowed()).isTrue();
		assertThat(seenByTheStore[0]).isNotNull();
		assertThat(seenByTheStore[0].getContext().getParentObservation()).isEqualTo(parent);
		assertThat(this.registry).hasObservationWithNameEqualTo("ratelimit.decision")
			.that()
			.hasParentObservationEqualTo(parent)
			.hasLowCardinalityKeyValue("ratelimit.caller", "webflux");
	}

	@Test
	void aFailedDecisionIsRecordedAsAnError() {
		RateLimiter failing = new RateLimiter() {

			@Override
			public Verdict evaluate(List<RateLimitCheck> checks) {
				throw new IllegalStateException("store down");
			}

			@Override
			public CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks) {
				return CompletableFuture.failedFuture(new CompletionException(new IllegalStateException("down")));
			}

			@Override
			public void reset(RateLimitPolicy policy, String subject) {
			}

		};
		List<RateLimitCheck> checks = List.of(RateLimitCheck.of(LOGIN, "grace"));
		assertThatExceptionOfType(IllegalStateException.class)
			.isThrownBy(() -> this.observations.evaluate(failing, checks, "servlet"));
		assertThat(this.observations.evaluateAsync(failing, checks, "webflux", null)).isCompletedExceptionally();
		assertThat(this.stopped).hasSize(2).allSatisfy((context) -> {
			assertThat(context.getError()).isInstanceOf(IllegalStateException.class);
			assertThat(context.getLowCardinalityKeyValue("ratelimit.outcome").getValue()).isEqualTo("error");
			assertThat(context.getLowCardinalityKeyValue("error").getValue())
				.isEqualTo("IllegalStateException");
		});
	}

	@Test
	void withoutHandlersTheLimiterIsCalledStraightAway() {
		RateLimitObservations none = RateLimitObservations.NONE;
		assertThat(none.enabled()).isFalse();
		assertThat(none.evaluate(this.limiter, List.of(RateLimitCheck.of(LOGIN, "heidi")), "servlet").allowed())
			.isTrue();
		assertThat(none.startWait(new Verdict(List.of(), List.of()), "servlet", null)).isSameAs(Observation.NOOP);
	}

}
