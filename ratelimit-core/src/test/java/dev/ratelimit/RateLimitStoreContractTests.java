package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.RateLimitStore;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.Race;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The store contract, run against every {@link RateLimitStore}: a new backend adds a subclass, not copied tests.
 * Time is a {@link MutableClock} that subclasses hand to their store (the local store's clock, or the Redis script's
 * explicit {@code now}).
 */
public abstract class RateLimitStoreContractTests {

	protected final MutableClock clock = MutableClock.atRealisticEpoch();

	private RateLimitStore store;

	private String subject;

	/** Creates the store under test on the given clock. */
	protected abstract RateLimitStore createStore(MutableClock clock);

	/** Returns whether the store holds any state for a subject under a policy, read from its backend itself. */
	protected abstract boolean holdsState(RateLimitPolicy policy, String subject);

	private static final String RESERVATIONS_ELSEWHERE = "the store decides a check that may wait elsewhere than the"
			+ " same policy's other checks (local views: a rule with max-wait cannot be local)";

	/**
	 * Whether a check that may wait for a reservation is decided where the same policy's other checks are; the
	 * reservation tests mix both on one policy. Local views ({@code sync: local}) send waiting checks to the shared
	 * store, and no rule is both local and waiting.
	 */
	protected boolean reservesWhereItDecides() {
		return true;
	}

	@BeforeEach
	void createStore() {
		this.store = createStore(this.clock);
		this.subject = "client-" + UUID.randomUUID().toString().substring(0, 8);
	}

	private static RateLimitPolicy policy(Algorithm algorithm, long limit, Duration period) {
		return RateLimitPolicy.of("contract-" + algorithm.scriptId(), algorithm, limit, period);
	}

	private Decision one(RateLimitPolicy policy, long cost) {
		return this.store.evaluate(List.of(RateLimitCheck.of(policy, this.subject, cost))).get(0);
	}

	private Decision peek(RateLimitPolicy policy) {
		return one(policy, 0);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void admitsTheLimitThenDenies(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		for (int i = 4; i >= 0; i--) {
			Decision decision = one(policy, 1);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(i);
			assertThat(decision.limit()).isEqualTo(5);
			assertThat(decision.retryAfter()).isZero();
			assertThat(decision.resetAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(2));
		}
		Decision denied = one(policy, 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isZero();
		assertThat(denied.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofMinutes(1));
	}

	/** Concurrency's retryAfter is a suggestion (releases free slots sooner), see the lease tests. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = { "CONCURRENCY", "DISTINCT" })
	void retryAfterIsExactlyWhenTheRequestIsAdmittedAgain(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 4, Duration.ofSeconds(10));
		this.clock.advance(Duration.ofMillis(1234));
		Decision denied = one(policy, 1);
		for (int i = 0; i < 20 && denied.allowed(); i++) {
			this.clock.advance(Duration.ofMillis(700));
			denied = one(policy, 1);
		}
		assertThat(denied.allowed()).isFalse();
		long wait = denied.retryAfter().toNanos() / 1_000;
		this.clock.advanceMicros(wait - 1);
		assertThat(one(policy, 1).allowed()).as("one microsecond before retryAfter").isFalse();
		this.clock.advanceMicros(1);
		assertThat(one(policy, 1).allowed()).as("at retryAfter").isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void costConsumesThatManyUnits(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 10, Duration.ofHours(1));
		assertThat(one(policy, 7).remaining()).isEqualTo(3);
		Decision denied = one(policy, 4);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isEqualTo(3);
		assertThat(one(policy, 3).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void costAboveCapacityIsNeverAllowedAndConsumesNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 10, Duration.ofHours(1));
		one(policy, 2);
		Decision decision = one(policy, 11);
		assertThat(decision.allowed()).isFalse();
		assertThat(decision.neverAllowed()).isTrue();
		assertThat(decision.retryAfter()).isEqualTo(Decision.NEVER);
		assertThat(decision.remaining()).isEqualTo(8);
		assertThat(peek(policy).remaining()).isEqualTo(8);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void inspectingWithCostZeroConsumesNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 3, Duration.ofMinutes(5));
		Decision fresh = peek(policy);
		assertThat(fresh.allowed()).isTrue();
		assertThat(fresh.remaining()).isEqualTo(3);
		assertThat(fresh.resetAfter()).isZero();
		one(policy, 1);
		assertThat(peek(policy).remaining()).isEqualTo(2);
		assertThat(peek(policy).remaining()).isEqualTo(2);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void peekAnswersWhatEvaluateWouldAndConsumesNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		// admitted, admitted, denied, never admitted, admitted, denied: each peeked twice, then evaluated
		for (long cost : new long[] { 0, 1, 3, 2, 6, 1, 1 }) {
			List<RateLimitCheck> request = List.of(RateLimitCheck.of(policy, this.subject, cost));
			List<Decision> peeked = this.store.peek(request);
			assertThat(this.store.peek(request)).as("peeked again, cost %d", cost).isEqualTo(peeked);
			assertThat(withoutLeases(this.store.evaluate(request))).as("evaluated, cost %d", cost).isEqualTo(peeked);
			this.clock.advance(Duration.ofMillis(1_500));
		}
		assertThat(peek(policy).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void peekOfAFreshSubjectCreatesNoStateAndLeavesTheWholeQuota(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 4, Duration.ofMinutes(1));
		Decision peeked = this.store.peek(List.of(RateLimitCheck.of(policy, this.subject))).get(0);
		assertThat(peeked.allowed()).isTrue();
		assertThat(peeked.remaining()).isEqualTo(3);
		assertThat(holdsState(policy, this.subject)).as("state after a peek").isFalse();
		for (int i = 0; i < 4; i++) {
			assertThat(one(policy, 1).allowed()).as("request %d", i + 1).isTrue();
		}
		assertThat(holdsState(policy, this.subject)).as("state after requests").isTrue();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void peekOfARequestOfSeveralChecksHasTheVerdictOfEvaluate(Algorithm algorithm) {
		RateLimitPolicy generous = RateLimitPolicy.of("generous", algorithm, 10, Duration.ofMinutes(1));
		RateLimitPolicy strict = RateLimitPolicy.of("strict", Algorithm.GCRA, 1, Duration.ofMinutes(1));
		RateLimitPolicy shadow = RateLimitPolicy.of("shadow", Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(generous, this.subject, 2),
				RateLimitCheck.of(strict, this.subject), new RateLimitCheck(shadow, this.subject, 3, true));
		for (int i = 0; i < 3; i++) {
			List<Decision> peeked = this.store.peek(request);
			assertThat(peeked.get(0).allowed()).isTrue();
			assertThat(peeked.get(1).allowed()).isEqualTo(i == 0);
			assertThat(peeked.get(2).neverAllowed()).isTrue();
			assertThat(peeked.get(0).remaining()).as("after the admitted request, then without the denied ones")
				.isEqualTo(8);
			assertThat(withoutLeases(this.store.evaluate(request))).isEqualTo(peeked);
		}
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void quotaComesBackAfterALongIdleGap(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 3, Duration.ofSeconds(30));
		one(policy, 3);
		assertThat(one(policy, 1).allowed()).isFalse();
		this.clock.advance(Duration.ofDays(3));
		Decision decision = one(policy, 3);
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void deniedRequestConsumesNoOtherRule(Algorithm algorithm) {
		RateLimitPolicy generous = RateLimitPolicy.of("generous", algorithm, 10, Duration.ofMinutes(1));
		RateLimitPolicy strict = RateLimitPolicy.of("strict", Algorithm.GCRA, 1, Duration.ofMinutes(1));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(generous, this.subject),
				RateLimitCheck.of(strict, this.subject));
		List<Decision> first = this.store.evaluate(request);
		assertThat(first).allMatch(Decision::allowed);
		for (int i = 0; i < 5; i++) {
			List<Decision> denied = this.store.evaluate(request);
			assertThat(denied.get(1).allowed()).isFalse();
			assertThat(denied.get(0).allowed()).as("the generous rule alone would admit").isTrue();
			assertThat(denied.get(0).remaining()).as("reported without the denied request").isEqualTo(9);
		}
		assertThat(one(generous, 1).remaining()).isEqualTo(8);
	}

	@Test
	void deniedRequestConsumesNothingEvenWhenTheDenyingRuleComesFirst() {
		RateLimitPolicy strict = RateLimitPolicy.of("strict-first", Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1));
		RateLimitPolicy log = RateLimitPolicy.of("log-second", Algorithm.SLIDING_WINDOW_LOG, 5, Duration.ofMinutes(1));
		one(strict, 1);
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(strict, this.subject, 1),
				RateLimitCheck.of(log, this.subject, 2));
		assertThat(this.store.evaluate(request).get(0).allowed()).isFalse();
		assertThat(peek(log).remaining()).isEqualTo(5);
	}

	@Test
	void shadowCheckNeverDeniesButIsReported() {
		RateLimitPolicy enforced = RateLimitPolicy.of("enforced", Algorithm.GCRA, 10, Duration.ofMinutes(1));
		RateLimitPolicy shadow = RateLimitPolicy.of("shadow", Algorithm.SLIDING_WINDOW_LOG, 2, Duration.ofMinutes(1));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(enforced, this.subject),
				new RateLimitCheck(shadow, this.subject, 1, true));
		for (int i = 0; i < 5; i++) {
			List<Decision> decisions = this.store.evaluate(request);
			assertThat(decisions.get(0).allowed()).isTrue();
			assertThat(decisions.get(1).allowed()).isEqualTo(i < 2);
		}
		assertThat(peek(enforced).remaining()).isEqualTo(5);
		assertThat(peek(shadow).remaining()).isZero();
	}

	@Test
	void resetRestoresTheFullQuota() {
		RateLimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_COUNTER, 2, Duration.ofMinutes(1));
		one(policy, 2);
		assertThat(one(policy, 1).allowed()).isFalse();
		this.store.reset(policy, this.subject);
		assertThat(one(policy, 1).remaining()).isEqualTo(1);
	}

	@Test
	void subjectsAreIndependentWhateverBytesTheyContain() {
		RateLimitPolicy policy = policy(Algorithm.GCRA, 1, Duration.ofMinutes(1));
		List<String> subjects = List.of("plain", "2001:db8::1", "ünïcödé", "spaces and {braces}", "x".repeat(10_000),
				"x".repeat(9_999) + "y", "");
		for (String each : subjects) {
			assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, this.subject + each))).get(0).allowed())
				.as(each.length() > 20 ? each.substring(0, 20) + "..." : each)
				.isTrue();
		}
	}

	@Test
	void gcraSpacesRequestsByTheEmissionInterval() {
		RateLimitPolicy policy = policy(Algorithm.GCRA, 60, Duration.ofMinutes(1)).withBurst(1);
		assertThat(one(policy, 1).allowed()).isTrue();
		Decision denied = one(policy, 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(one(policy, 1).allowed()).isTrue();
	}

	private Decision reserve(RateLimitPolicy policy, long cost, Duration maxWait) {
		return this.store.evaluate(List.of(new RateLimitCheck(policy, this.subject, cost, false, maxWait))).get(0);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET" })
	void aRequestWithinMaxWaitReservesTheNextSlotsInArrivalOrder(Algorithm algorithm) {
		assumeTrue(reservesWhereItDecides(), RESERVATIONS_ELSEWHERE);
		RateLimitPolicy policy = policy(algorithm, 2, Duration.ofSeconds(1));
		one(policy, 2);
		Decision first = reserve(policy, 1, Duration.ofSeconds(2));
		assertThat(first.allowed()).isTrue();
		assertThat(first.retryAfter()).isZero();
		assertThat(first.delay()).isEqualTo(Duration.ofMillis(500));
		assertThat(reserve(policy, 1, Duration.ofSeconds(2)).delay()).as("the slot after the first reservation")
			.isEqualTo(Duration.ofSeconds(1));
		Decision tooLong = reserve(policy, 1, Duration.ofMillis(1200));
		assertThat(tooLong.allowed()).as("its slot would be 1.5 s away").isFalse();
		assertThat(tooLong.delay()).isZero();
		assertThat(tooLong.retryAfter()).isEqualTo(Duration.ofMillis(1500));
		assertThat(one(policy, 1).allowed()).as("without maxWait").isFalse();
	}

	/** What a reservation at t reports is what an admission at its slot would report, and it took the slot. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET" })
	void aReservationIsTheAdmissionAtItsSlot(Algorithm algorithm) {
		assumeTrue(reservesWhereItDecides(), RESERVATIONS_ELSEWHERE);
		RateLimitPolicy policy = policy(algorithm, 4, Duration.ofSeconds(1)).withBurst(3);
		this.clock.advanceMicros(123_457);
		one(policy, 3);
		this.clock.advanceMicros(40_000);
		Decision reserved = reserve(policy, 2, Duration.ofSeconds(5));
		assertThat(reserved.delay()).isEqualTo(Duration.ofMillis(460));
		this.clock.advance(reserved.delay());
		Decision atSlot = peek(policy);
		assertThat(atSlot.remaining()).isEqualTo(reserved.remaining());
		assertThat(atSlot.resetAfter()).isEqualTo(reserved.resetAfter());
		assertThat(one(policy, 1).allowed()).as("the slot is taken").isFalse();
	}

	@Test
	void aRequestReservesInEveryCheckOrInNone() {
		assumeTrue(reservesWhereItDecides(), RESERVATIONS_ELSEWHERE);
		RateLimitPolicy waiting = policy(Algorithm.GCRA, 1, Duration.ofSeconds(1));
		RateLimitPolicy window = policy(Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1));
		one(waiting, 1);
		one(window, 1);
		List<RateLimitCheck> request = List.of(
				new RateLimitCheck(waiting, this.subject, 1, false, Duration.ofSeconds(5)),
				RateLimitCheck.of(window, this.subject));
		Verdict denied = new Verdict(request, this.store.evaluate(request));
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.delay()).isZero();
		assertThat(reserve(waiting, 1, Duration.ofSeconds(5)).delay()).as("nothing was reserved by the denial")
			.isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void aReservingRequestTakesItsOtherChecksAndReportsThemAtItsSlot() {
		assumeTrue(reservesWhereItDecides(), RESERVATIONS_ELSEWHERE);
		RateLimitPolicy waiting = policy(Algorithm.GCRA, 1, Duration.ofSeconds(1));
		RateLimitPolicy window = RateLimitPolicy.of("contract-window-10", Algorithm.FIXED_WINDOW, 10,
				Duration.ofHours(1));
		this.clock.setMicros(this.clock.micros() / 3_600_000_000L * 3_600_000_000L);
		one(waiting, 1);
		List<RateLimitCheck> request = List.of(
				new RateLimitCheck(waiting, this.subject, 1, false, Duration.ofSeconds(5)),
				RateLimitCheck.of(window, this.subject));
		Verdict verdict = new Verdict(request, this.store.evaluate(request));
		assertThat(verdict.allowed()).isTrue();
		assertThat(verdict.delay()).isEqualTo(Duration.ofSeconds(1));
		assertThat(verdict.decisions().get(1).remaining()).isEqualTo(9);
		assertThat(verdict.decisions().get(1).resetAfter()).as("seen from the slot")
			.isEqualTo(Duration.ofHours(1).minusSeconds(1));
	}

	/**
	 * Cancelling a reservation gives its slot back: the state moves back one interval, so the next request to
	 * reserve waits one interval less; reservations already made keep their slots.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET" })
	void aCancelledReservationMovesTheNextReservationUp(Algorithm algorithm) {
		assumeTrue(reservesWhereItDecides(), RESERVATIONS_ELSEWHERE);
		RateLimitPolicy policy = policy(algorithm, 2, Duration.ofSeconds(1));
		one(policy, 2);
		RateLimitCheck check = new RateLimitCheck(policy, this.subject, 1, false, Duration.ofSeconds(5));
		List<Decision> first = this.store.evaluate(List.of(check));
		assertThat(reserve(policy, 1, Duration.ofSeconds(5)).delay()).isEqualTo(Duration.ofSeconds(1));
		this.store.cancel(List.of(check));
		assertThat(first.get(0).delay()).isEqualTo(Duration.ofMillis(500));
		assertThat(reserve(policy, 1, Duration.ofSeconds(5)).delay()).as("moved up by one interval")
			.isEqualTo(Duration.ofSeconds(1));
		this.store.cancel(List.of(check, check));
		this.clock.advance(Duration.ofMillis(100));
		assertThat(reserve(policy, 1, Duration.ofSeconds(5)).delay()).as("two more given back")
			.isEqualTo(Duration.ofMillis(400));
		this.store.cancel(List.of(check.withMaxWait(Duration.ZERO), check, check, check));
		assertThat(holdsState(policy, this.subject)).as("everything given back: no state").isFalse();
	}

	@Test
	void onlyTheBucketsAndGcraCanReserve() {
		for (Algorithm algorithm : Algorithm.values()) {
			RateLimitPolicy policy = policy(algorithm, 2, Duration.ofSeconds(1));
			if (algorithm.supportsReservations()) {
				assertThat(RateLimitCheck.of(policy, this.subject).withMaxWait(Duration.ofSeconds(1)).maxWaitMicros())
					.isEqualTo(1_000_000);
			}
			else {
				// a distinct check presents a value (it cannot reserve either)
				RateLimitCheck check = (algorithm == Algorithm.DISTINCT)
						? RateLimitCheck.distinct(policy, this.subject, "value", false)
						: RateLimitCheck.of(policy, this.subject);
				assertThatIllegalArgumentException().isThrownBy(() -> check.withMaxWait(Duration.ofSeconds(1)))
					.withMessageContaining("cannot reserve");
			}
		}
	}

	@Test
	void spreadFixedWindowsResetAtTheSameTimeForOneSubject() {
		RateLimitPolicy policy = policy(Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1)).withSpreadWindows(true);
		Decision first = one(policy, 1);
		Decision denied = one(policy, 1);
		assertThat(denied.retryAfter()).isEqualTo(first.resetAfter());
		this.clock.advance(first.resetAfter());
		assertThat(one(policy, 1).allowed()).isTrue();
		assertThat(one(policy, 1).retryAfter()).isEqualTo(Duration.ofMinutes(1));
	}

	/** A peek acquires nothing, so it carries no lease; otherwise it is what evaluate answers. */
	private static List<Decision> withoutLeases(List<Decision> decisions) {
		return decisions.stream().map((decision) -> decision.withLease(null, decision.reclaimed())).toList();
	}

	private Verdict request(RateLimitCheck... checks) {
		List<RateLimitCheck> request = List.of(checks);
		return new Verdict(request, this.store.evaluate(request));
	}

	private Lease acquire(RateLimitPolicy policy) {
		Decision decision = one(policy, 1);
		assertThat(decision.allowed()).as("acquired").isTrue();
		assertThat(decision.lease()).isNotNull();
		return decision.lease();
	}

	/**
	 * 32 threads make 25 attempts each against a cap of 8, and release what they acquire. The first requests admitted
	 * hold their slots until every other thread has made all its attempts, so that every run tries to exceed the cap
	 * while it is full; then they release and go on acquiring and releasing.
	 */
	@Test
	void concurrencyCapHoldsWithManyThreadsAcquiringAndReleasing() throws Exception {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 8, Duration.ofMinutes(1));
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger mostInFlight = new AtomicInteger();
		AtomicInteger admitted = new AtomicInteger();
		AtomicInteger releasedButNotHeld = new AtomicInteger();
		AtomicInteger finished = new AtomicInteger();
		CountDownLatch othersDone = new CountDownLatch(1);
		Runnable openWhenAllAccountedFor = () -> {
			// nothing is released before the latch opens, so the sum only grows until it does
			if (finished.get() + inFlight.get() == 32) {
				othersDone.countDown();
			}
		};
		Race.run(32, (thread) -> {
			for (int i = 0; i < 25; i++) {
				Decision decision = one(policy, 1);
				if (decision.allowed()) {
					admitted.incrementAndGet();
					mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
					openWhenAllAccountedFor.run();
					othersDone.await(30, TimeUnit.SECONDS);
					inFlight.decrementAndGet();
					if (!this.store.release(List.of(decision.lease())).get(0)) {
						releasedButNotHeld.incrementAndGet();
					}
				}
			}
			finished.incrementAndGet();
			openWhenAllAccountedFor.run();
		});
		assertThat(mostInFlight.get()).as("held at once").isEqualTo(8);
		assertThat(admitted.get()).as("admitted").isGreaterThan(8);
		assertThat(releasedButNotHeld.get()).as("releases of leases that were not held").isZero();
		assertThat(peek(policy).remaining()).as("free slots after every release").isEqualTo(8);
		assertThat(holdsState(policy, this.subject)).as("state after every release").isFalse();
	}

	@Test
	void concurrencyAdmitsTheLimitInFlightAndReleaseFreesASlot() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 2, Duration.ofSeconds(30));
		Lease first = acquire(policy);
		this.clock.advance(Duration.ofSeconds(10));
		Decision second = one(policy, 1);
		assertThat(second.remaining()).isZero();
		assertThat(second.resetAfter()).as("until the earliest lease expires").isEqualTo(Duration.ofSeconds(20));
		Decision denied = one(policy, 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.lease()).isNull();
		assertThat(denied.limit()).isEqualTo(2);
		assertThat(denied.retryAfter()).as("a suggested wait, at most 1 s").isEqualTo(Duration.ofSeconds(1));
		assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(20));
		assertThat(this.store.release(List.of(first))).containsExactly(true);
		Decision third = one(policy, 1);
		assertThat(third.allowed()).as("the released slot").isTrue();
		assertThat(third.lease()).isNotNull().isNotEqualTo(first).isNotEqualTo(second.lease());
		assertThat(this.store.release(List.of(second.lease(), third.lease()))).containsExactly(true, true);
		assertThat(holdsState(policy, this.subject)).as("state after the last release").isFalse();
	}

	@Test
	void releasingALeaseTwiceFreesOnlyItsOwnSlot() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 2, Duration.ofMinutes(1));
		Lease first = acquire(policy);
		Lease second = acquire(policy);
		assertThat(this.store.release(List.of(first))).containsExactly(true);
		assertThat(this.store.release(List.of(first))).as("released again").containsExactly(false);
		assertThat(this.store.release(List.of(new Lease(policy, this.subject, "never-granted", 1))))
			.containsExactly(false);
		assertThat(peek(policy).remaining()).as("the second lease still counts").isEqualTo(1);
		assertThat(one(policy, 1).allowed()).isTrue();
		assertThat(one(policy, 1).allowed()).isFalse();
		assertThat(this.store.renew(List.of(first))).as("a released lease is not renewed").containsExactly(false);
		assertThat(this.store.release(List.of(second))).containsExactly(true);
	}

	@Test
	void expiredLeasesAreReclaimedAfterTheTimeout() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 2, Duration.ofSeconds(10));
		Lease crashed = acquire(policy);
		this.clock.advance(Duration.ofSeconds(4));
		Lease running = acquire(policy);
		this.clock.advance(Duration.ofSeconds(6).minusNanos(1_000));
		Decision full = one(policy, 1);
		assertThat(full.allowed()).as("a microsecond before the first lease expires").isFalse();
		assertThat(full.retryAfter()).as("at least 1 ms").isEqualTo(Duration.ofMillis(1));
		this.clock.advanceMicros(1);
		Decision reclaiming = one(policy, 1);
		assertThat(reclaiming.allowed()).as("when it expires").isTrue();
		assertThat(reclaiming.reclaimed()).isEqualTo(1);
		assertThat(reclaiming.remaining()).isZero();
		assertThat(this.store.release(List.of(crashed))).as("an expired, reclaimed lease").containsExactly(false);
		assertThat(this.store.release(List.of(running, reclaiming.lease()))).containsExactly(true, true);
	}

	@Test
	void aRenewedLeaseOutlivesTheTimeoutAndAnExpiredOneIsNotRenewed() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 2, Duration.ofSeconds(10));
		Lease lease = acquire(policy);
		this.clock.advance(Duration.ofSeconds(9));
		assertThat(this.store.renew(List.of(lease))).containsExactly(true);
		this.clock.advance(Duration.ofSeconds(1));
		Lease other = acquire(policy);
		this.clock.advance(Duration.ofSeconds(8));
		Decision denied = one(policy, 1);
		assertThat(denied.allowed()).as("18 s after acquiring, renewed at 9 s").isFalse();
		assertThat(denied.resetAfter()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(this.store.renew(List.of(lease))).as("expired").containsExactly(false);
		assertThat(peek(policy).remaining()).as("not taken again").isEqualTo(1);
		assertThat(this.store.release(List.of(lease))).as("expired").containsExactly(false);
		assertThat(this.store.release(List.of(other))).containsExactly(true);
	}

	@Test
	void requestDeniedByARateRuleHoldsNoLease() {
		RateLimitPolicy rate = RateLimitPolicy.of("rate", Algorithm.SLIDING_WINDOW_LOG, 1, Duration.ofMinutes(1));
		RateLimitPolicy concurrency = RateLimitPolicy.concurrency("in-flight", 5, Duration.ofMinutes(1));
		one(rate, 1);
		Verdict denied = request(RateLimitCheck.of(concurrency, this.subject), RateLimitCheck.of(rate, this.subject));
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.decisions().get(0).allowed()).as("concurrency alone would admit").isTrue();
		assertThat(denied.decisions().get(0).remaining()).as("reported without the denied request").isEqualTo(5);
		assertThat(denied.leases()).isEmpty();
		assertThat(holdsState(concurrency, this.subject)).as("lease state").isFalse();
		assertThat(peek(concurrency).remaining()).isEqualTo(5);
	}

	@Test
	void requestDeniedByConcurrencyConsumesNoRateQuota() {
		RateLimitPolicy rate = RateLimitPolicy.of("rate", Algorithm.GCRA, 5, Duration.ofMinutes(1));
		RateLimitPolicy concurrency = RateLimitPolicy.concurrency("in-flight", 1, Duration.ofMinutes(1));
		Lease held = acquire(concurrency);
		Verdict denied = request(RateLimitCheck.of(rate, this.subject), RateLimitCheck.of(concurrency, this.subject));
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.decisions().get(0).allowed()).as("the rate rule alone would admit").isTrue();
		assertThat(denied.leases()).isEmpty();
		assertThat(holdsState(rate, this.subject)).as("rate state").isFalse();
		assertThat(peek(rate).remaining()).isEqualTo(5);
		this.store.release(List.of(held));
		Verdict admitted = request(RateLimitCheck.of(rate, this.subject), RateLimitCheck.of(concurrency, this.subject));
		assertThat(admitted.allowed()).isTrue();
		assertThat(admitted.decisions().get(0).remaining()).as("the whole rate quota but this request").isEqualTo(4);
		assertThat(admitted.leases()).singleElement().satisfies((lease) -> {
			assertThat(lease.policy()).isEqualTo(concurrency);
			assertThat(lease.subject()).isEqualTo(this.subject);
			assertThat(lease.slots()).isEqualTo(1);
		});
	}

	@Test
	void peekCountsFreeSlotsWithoutAcquiring() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("in-flight", 5, Duration.ofMinutes(1));
		one(policy, 2);
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(policy, this.subject, 2));
		for (int i = 0; i < 3; i++) {
			Decision peeked = this.store.peek(request).get(0);
			assertThat(peeked.allowed()).isTrue();
			assertThat(peeked.remaining()).isEqualTo(1);
			assertThat(peeked.lease()).isNull();
		}
		Decision acquired = this.store.evaluate(request).get(0);
		assertThat(acquired.remaining()).isEqualTo(1);
		assertThat(acquired.lease()).isNotNull();
		assertThat(acquired.lease().slots()).isEqualTo(2);
		assertThat(this.store.peek(request).get(0).allowed()).isFalse();
		assertThat(this.store.release(List.of(acquired.lease()))).containsExactly(true);
		assertThat(peek(policy).remaining()).as("both slots freed").isEqualTo(3);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "SLIDING_WINDOW_LOG", "CONCURRENCY" })
	void costsOfTensOfThousandsOfEntriesFitInOneCall(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, RateLimitPolicy.MAX_LOG_LIMIT, Duration.ofHours(1));
		Decision first = one(policy, 10_000);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(90_000);
		Decision all = one(policy, 90_000);
		assertThat(all.remaining()).isZero();
		assertThat(one(policy, 1).allowed()).isFalse();
		if (algorithm == Algorithm.CONCURRENCY) {
			assertThat(this.store.release(List.of(first.lease(), all.lease()))).containsExactly(true, true);
			assertThat(peek(policy).remaining()).isEqualTo(RateLimitPolicy.MAX_LOG_LIMIT);
		}
	}

	@Test
	void decisionsUseMicrosecondDurations() {
		RateLimitPolicy policy = policy(Algorithm.GCRA, 3, Duration.ofSeconds(1));
		Decision decision = one(policy, 1);
		assertThat(decision.resetAfter()).isEqualTo(Duration.of(333_334, ChronoUnit.MICROS));
	}

	private Decision present(RateLimitPolicy policy, String value) {
		return this.store.evaluate(List.of(RateLimitCheck.distinct(policy, this.subject, value, false))).get(0);
	}

	@Test
	void distinctAdmitsTheLimitOfValuesThenDeniesANewOneButAlwaysASeenOne() {
		RateLimitPolicy policy = policy(Algorithm.DISTINCT, 5, Duration.ofHours(1));
		for (int i = 1; i <= 5; i++) {
			Decision decision = present(policy, "u" + i);
			assertThat(decision.allowed()).isTrue();
			assertThat(decision.remaining()).isEqualTo(5 - i);
			assertThat(decision.limit()).isEqualTo(5);
		}
		Decision denied = present(policy, "u6");
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isZero();
		assertThat(denied.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofHours(1));
		assertThat(denied.resetAfter()).isEqualTo(denied.retryAfter());
		Decision again = present(policy, "u1");
		assertThat(again.allowed()).as("a value seen in the window").isTrue();
		assertThat(again.remaining()).isZero();
		assertThat(present(policy, "u6").allowed()).as("denials count no value").isFalse();

		this.clock.advance(denied.retryAfter().minusNanos(1_000));
		assertThat(present(policy, "u7").allowed()).as("one microsecond before the window ends").isFalse();
		this.clock.advance(Duration.ofNanos(1_000));
		Decision nextWindow = present(policy, "u6");
		assertThat(nextWindow.allowed()).as("in the next window").isTrue();
		assertThat(nextWindow.remaining()).isEqualTo(4);
	}

	@Test
	void distinctAboveTheExactLimitCountsWithAHyperLogLogWithinItsError() {
		long limit = 2_000;
		RateLimitPolicy policy = policy(Algorithm.DISTINCT, limit, Duration.ofHours(1));
		int admitted = 0;
		int value = 0;
		while (present(policy, "user-" + value).allowed()) {
			admitted++;
			value++;
			assertThat(value).as("denied before 3 times the limit").isLessThan(3 * (int) limit);
		}
		// 0.81% is the standard error; at this cardinality the estimate is much closer
		assertThat((double) admitted).isCloseTo(limit, org.assertj.core.data.Percentage.withPercentage(3));
		assertThat(present(policy, "user-0").allowed()).as("a value seen in the window").isTrue();
		assertThat(present(policy, "user-" + (value + 1)).allowed()).isFalse();
		this.store.reset(policy, this.subject);
		Decision afresh = present(policy, "user-" + value);
		assertThat(afresh.allowed()).isTrue();
		assertThat(afresh.remaining()).as("reset forgets every value").isEqualTo(limit - 1);
	}

	@Test
	void distinctRequestDeniedByAnotherRuleCountsNoValueAndForgetsNoSeenOne() {
		RateLimitPolicy distinct = policy(Algorithm.DISTINCT, 3, Duration.ofHours(1));
		RateLimitPolicy strict = RateLimitPolicy.of("strict-beside-distinct", Algorithm.GCRA, 1, Duration.ofHours(1));
		List<RateLimitCheck> first = List.of(RateLimitCheck.distinct(distinct, this.subject, "u1", false),
				RateLimitCheck.of(strict, this.subject));
		assertThat(this.store.evaluate(first)).allMatch(Decision::allowed);
		for (String value : List.of("u1", "u2")) {
			List<Decision> denied = this.store.evaluate(List.of(
					RateLimitCheck.distinct(distinct, this.subject, value, false), RateLimitCheck.of(strict, this.subject)));
			assertThat(denied.get(1).allowed()).isFalse();
			assertThat(denied.get(0).allowed()).as("the distinct rule alone would admit %s", value).isTrue();
			assertThat(denied.get(0).remaining()).as("reported without the denied request").isEqualTo(2);
		}
		assertThat(present(distinct, "u1").remaining()).as("u1 still counted, u2 never was").isEqualTo(2);
		assertThat(present(distinct, "u2").remaining()).isEqualTo(1);
	}

	@Test
	void requestDeniedByDistinctConsumesNoOtherRule() {
		RateLimitPolicy distinct = policy(Algorithm.DISTINCT, 1, Duration.ofHours(1));
		RateLimitPolicy generous = RateLimitPolicy.of("generous-beside-distinct", Algorithm.GCRA, 10,
				Duration.ofHours(1));
		present(distinct, "u1");
		List<Decision> denied = this.store.evaluate(List.of(RateLimitCheck.of(generous, this.subject),
				RateLimitCheck.distinct(distinct, this.subject, "u2", false)));
		assertThat(denied.get(1).allowed()).isFalse();
		assertThat(this.store.evaluate(List.of(RateLimitCheck.of(generous, this.subject, 0))).get(0).remaining())
			.isEqualTo(10);
	}

	@Test
	void peekOfADistinctValueAnswersWhatEvaluateWouldAndCountsNothing() {
		RateLimitPolicy policy = policy(Algorithm.DISTINCT, 2, Duration.ofHours(1));
		present(policy, "u1");
		List<RateLimitCheck> request = List.of(RateLimitCheck.distinct(policy, this.subject, "u2", false));
		Decision peeked = this.store.peek(request).get(0);
		assertThat(peeked.allowed()).isTrue();
		assertThat(peeked.remaining()).isZero();
		assertThat(this.store.peek(request).get(0)).isEqualTo(peeked);
		assertThat(this.store.evaluate(request).get(0)).isEqualTo(peeked);
		assertThat(this.store.peek(request).get(0).remaining()).as("u2 counted now, and seen").isZero();
		assertThat(this.store.peek(List.of(RateLimitCheck.distinct(policy, this.subject, "u3", false))).get(0).allowed())
			.isFalse();
	}

	private Verdict admitted(List<RateLimitCheck> checks) {
		Verdict verdict = new Verdict(checks, this.store.evaluate(checks));
		assertThat(verdict.allowed()).isTrue();
		return verdict;
	}

	private Consumption consumed(RateLimitPolicy policy, long cost) {
		return admitted(List.of(RateLimitCheck.of(policy, this.subject, cost))).consumptions().get(0);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = { "CONCURRENCY", "DISTINCT" })
	void refundGivesBackExactlyWhatARequestConsumed(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		Consumption first = consumed(policy, 2);
		this.clock.advanceMicros(10);
		consumed(policy, 3);
		assertThat(one(policy, 1).allowed()).isFalse();
		Decision refunded = this.store.refund(List.of(first)).get(0);
		assertThat(refunded.allowed()).isTrue();
		assertThat(refunded.remaining()).isEqualTo(2);
		assertThat(peek(policy).remaining()).isEqualTo(2);
		assertThat(one(policy, 2).allowed()).isTrue();
		assertThat(one(policy, 1).allowed()).as("no more than the refunded units").isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = { "CONCURRENCY", "DISTINCT" })
	void refundNeverGivesMoreThanTheFullQuota(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 3, Duration.ofSeconds(10));
		Consumption consumption = consumed(policy, 2);
		this.clock.advance(Duration.ofSeconds(25));
		assertThat(this.store.refund(List.of(consumption)).get(0).remaining()).isEqualTo(3);
		for (int i = 0; i < 3; i++) {
			assertThat(one(policy, 1).allowed()).isTrue();
		}
		assertThat(one(policy, 1).allowed()).isFalse();
	}

	/** A window gives back only units it still counts: none of a request admitted in a window gone by. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "FIXED_WINDOW", "SLIDING_WINDOW_LOG", "SLIDING_WINDOW_COUNTER" })
	void windowsGiveBackNothingOfARequestFromAWindowGoneBy(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 3, Duration.ofSeconds(10));
		Consumption old = consumed(policy, 1);
		this.clock.advance(Duration.ofSeconds(25));
		consumed(policy, 3);
		assertThat(this.store.refund(List.of(old)).get(0).remaining()).isZero();
		assertThat(one(policy, 1).allowed()).isFalse();
	}

	/** The counter gives back to the window the units were counted in, also once it has become the previous one. */
	@Test
	void slidingWindowCounterGivesBackToThePreviousWindow() {
		RateLimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_COUNTER, 4, Duration.ofSeconds(10));
		this.clock.advanceMicros(10_000_000 - Math.floorMod(this.clock.micros(), 10_000_000));
		Consumption early = consumed(policy, 4);
		this.clock.advance(Duration.ofSeconds(10));
		assertThat(peek(policy).remaining()).as("the previous window weighs fully at its end").isZero();
		assertThat(this.store.refund(List.of(early)).get(0).remaining()).isEqualTo(4);
	}

	@Test
	void refundOfARequestOfSeveralChecksGivesBackEach() {
		RateLimitPolicy gcra = policy(Algorithm.GCRA, 2, Duration.ofMinutes(1));
		RateLimitPolicy window = RateLimitPolicy.of("contract-other", Algorithm.FIXED_WINDOW, 2, Duration.ofMinutes(1));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(gcra, this.subject), RateLimitCheck.of(window,
				this.subject + "-other"));
		Verdict first = admitted(request);
		admitted(request);
		assertThat(this.store.evaluate(request)).allMatch((decision) -> !decision.allowed());
		assertThat(first.consumptions()).hasSize(2);
		assertThat(this.store.refund(first.consumptions())).extracting(Decision::remaining).containsExactly(1L, 1L);
		admitted(request);
	}

	@Test
	void refundOfASubjectWithoutStateGivesBackNothing() {
		RateLimitPolicy policy = policy(Algorithm.GCRA, 2, Duration.ofMinutes(1));
		Consumption consumption = consumed(policy, 1);
		this.store.reset(policy, this.subject);
		assertThat(this.store.refund(List.of(consumption)).get(0).remaining()).isEqualTo(2);
		assertThat(holdsState(policy, this.subject)).isFalse();
	}

	/**
	 * A day quota in Europe/Berlin on the day the clocks go forward (23 hours): the window ends at local midnight,
	 * retryAfter is exactly until then, a refund gives back within the window, and the next day starts full.
	 */
	@Test
	void calendarDayQuotaResetsAtLocalMidnightOfA23HourDay() {
		ZoneId berlin = ZoneId.of("Europe/Berlin");
		RateLimitPolicy policy = RateLimitPolicy.calendar("contract-calendar", 3,
				CalendarPeriod.of(CalendarPeriod.Unit.DAY, berlin));
		long midnight = LocalDateTime.parse("2026-03-30T00:00").atZone(berlin).toEpochSecond() * 1_000_000L;
		this.clock.setMicros(LocalDateTime.parse("2026-03-29T00:30").atZone(berlin).toEpochSecond() * 1_000_000L);
		Consumption first = consumed(policy, 2);
		this.clock.advance(Duration.ofHours(5));
		consumed(policy, 1);
		Decision denied = one(policy, 1);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.retryAfter().toNanos() / 1_000).isEqualTo(midnight - this.clock.micros());
		assertThat(this.store.refund(List.of(first)).get(0).remaining()).isEqualTo(2);
		assertThat(one(policy, 2).allowed()).isTrue();
		this.clock.setMicros(midnight - 1);
		assertThat(one(policy, 1).allowed()).as("a microsecond before local midnight").isFalse();
		this.clock.setMicros(midnight);
		Decision nextDay = one(policy, 3);
		assertThat(nextDay.allowed()).as("at local midnight").isTrue();
		assertThat(nextDay.resetAfter()).isEqualTo(Duration.ofDays(1));
	}

	/** A month quota resets on the 1st; units of the month gone by are not given back. */
	@Test
	void calendarMonthQuotaResetsOnTheFirst() {
		ZoneId zone = ZoneId.of("America/New_York");
		RateLimitPolicy policy = RateLimitPolicy.calendar("contract-month", 2,
				CalendarPeriod.of(CalendarPeriod.Unit.MONTH, zone));
		this.clock.setMicros(LocalDateTime.parse("2026-04-30T23:59:59").atZone(zone).toEpochSecond() * 1_000_000L);
		Consumption april = consumed(policy, 2);
		Decision denied = one(policy, 1);
		assertThat(denied.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		this.clock.advance(Duration.ofSeconds(1));
		consumed(policy, 2);
		assertThat(this.store.refund(List.of(april)).get(0).remaining()).isZero();
		assertThat(one(policy, 1).allowed()).isFalse();
	}


	private Decision settle(Consumption consumption, long actualCost) {
		return this.store.settle(List.of(new Settlement(consumption, actualCost))).get(0);
	}

	/**
	 * A request reserved 2 of 5 and cost 9: the 7 more are charged unconditionally, 4 beyond the quota. The check is
	 * in debt: even an inspection is denied, with nothing remaining, until its retryAfter (a microsecond before, a
	 * request of one unit and an inspection are still denied; the state is kept meanwhile); then it has recovered.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class,
			names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void settleChargesTheDifferenceIntoDebtAndDeniesUntilItHasRecovered(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofSeconds(10));
		// early in a window, so that the windows' debt is not cut short by the window's end
		this.clock.advanceMicros(10_000_000 - Math.floorMod(this.clock.micros(), 10_000_000) + 1_000);
		Consumption reserved = consumed(policy, 2);
		Decision settled = settle(reserved, 9);
		// (local views send the charge with their next flush, which this reads at once)
		assertThat(holdsState(policy, this.subject)).isTrue();
		assertThat(settled.allowed()).as("in debt: an inspection is denied").isFalse();
		assertThat(settled.remaining()).isZero();
		assertThat(settled.retryAfter()).isPositive().isLessThanOrEqualTo(settled.resetAfter());
		assertThat(one(policy, 1).allowed()).as("the next request is denied").isFalse();
		long recovery = settled.retryAfter().toNanos() / 1_000;
		this.clock.advanceMicros(recovery - 1);
		assertThat(holdsState(policy, this.subject)).as("a key in debt is kept until it has recovered").isTrue();
		assertThat(peek(policy).allowed()).as("a microsecond before it has recovered").isFalse();
		assertThat(one(policy, 1).allowed()).as("a microsecond before it has recovered").isFalse();
		this.clock.advanceMicros(1);
		assertThat(peek(policy).allowed()).as("recovered").isTrue();
		Decision next = one(policy, 1);
		for (int i = 0; i < 20 && !next.allowed(); i++) {
			this.clock.advanceMicros(next.retryAfter().toNanos() / 1_000);
			next = one(policy, 1);
		}
		assertThat(next.allowed()).as("admits again once recovered").isTrue();
	}

	/** The units the estimate reserved beyond the actual cost are given back, as a refund of them would. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class,
			names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void settleGivesBackTheUnusedPartOfTheEstimate(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		Consumption reserved = consumed(policy, 4);
		assertThat(one(policy, 2).allowed()).isFalse();
		Decision settled = settle(reserved, 1);
		assertThat(settled.allowed()).isTrue();
		assertThat(settled.remaining()).isEqualTo(4);
		assertThat(one(policy, 4).allowed()).isTrue();
		assertThat(one(policy, 1).allowed()).as("no more than the unused units").isFalse();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class,
			names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void settleAtTheEstimateChangesNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		Consumption reserved = consumed(policy, 3);
		Decision before = peek(policy);
		assertThat(settle(reserved, 3)).isEqualTo(before);
		assertThat(peek(policy).remaining()).isEqualTo(2);
	}

	/**
	 * A charge of a subject whose state is gone (reset, or expired) charges from an empty state and creates it; a
	 * refund of nothing is nothing.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class,
			names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void settleOfASubjectWithoutStateChargesFromEmptyAndGivesBackNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		Consumption refunded = consumed(policy, 2);
		this.store.reset(policy, this.subject);
		assertThat(settle(refunded, 0).remaining()).isEqualTo(5);
		assertThat(holdsState(policy, this.subject)).isFalse();
		Consumption charged = consumed(policy, 1);
		this.store.reset(policy, this.subject);
		assertThat(settle(charged, 4).remaining()).as("charged the 3 units beyond the estimate").isEqualTo(2);
		assertThat(holdsState(policy, this.subject)).isTrue();
	}

	/** Settlements of several checks, each of its own admission time, in one call: one charged, one given back. */
	@Test
	void settleOfSeveralChecksSettlesEach() {
		RateLimitPolicy gcra = policy(Algorithm.GCRA, 4, Duration.ofMinutes(1));
		RateLimitPolicy window = RateLimitPolicy.of("contract-other", Algorithm.FIXED_WINDOW, 4, Duration.ofMinutes(1));
		Consumption first = consumed(gcra, 2);
		this.clock.advanceMicros(10);
		Verdict second = admitted(List.of(RateLimitCheck.of(window, this.subject + "-other", 3)));
		List<Decision> settled = this.store.settle(List.of(new Settlement(first, 4),
				new Settlement(second.consumptions().get(0), 1)));
		assertThat(settled).extracting(Decision::remaining).containsExactly(0L, 3L);
		assertThat(settled).extracting(Decision::allowed).containsExactly(true, true);
	}

	/** A window's debt is owed to the window the request was admitted in: a later window owes nothing. */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void windowsChargeNothingToALaterWindow(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 3, Duration.ofSeconds(10));
		Consumption old = consumed(policy, 1);
		this.clock.advance(Duration.ofSeconds(25));
		Decision settled = settle(old, 50);
		assertThat(settled.allowed()).isTrue();
		assertThat(settled.remaining()).isEqualTo(3);
		assertThat(one(policy, 3).allowed()).isTrue();
	}

	/**
	 * The counter charges the window the units were counted in also once it has become the previous one, where the
	 * debt weighs less as it slides out.
	 */
	@Test
	void slidingWindowCounterChargesThePreviousWindow() {
		RateLimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_COUNTER, 4, Duration.ofSeconds(10));
		this.clock.advanceMicros(10_000_000 - Math.floorMod(this.clock.micros(), 10_000_000));
		Consumption early = consumed(policy, 1);
		this.clock.advance(Duration.ofSeconds(15));
		// the previous window now counts 11 and weighs half: 5 of 4
		Decision settled = settle(early, 11);
		assertThat(settled.remaining()).isZero();
		assertThat(settled.allowed()).as("weighing 5 of 4: in debt").isFalse();
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(peek(policy).remaining()).as("the previous window has slid out").isEqualTo(4);
	}

	/**
	 * A day quota charged into debt is denied until local midnight, when the next day starts full; a request admitted
	 * on the day before and settled after midnight owes the new day nothing.
	 */
	@Test
	void calendarDayQuotaInDebtIsDeniedUntilLocalMidnight() {
		ZoneId berlin = ZoneId.of("Europe/Berlin");
		RateLimitPolicy policy = RateLimitPolicy.calendar("contract-calendar", 10,
				CalendarPeriod.of(CalendarPeriod.Unit.DAY, berlin));
		long midnight = LocalDateTime.parse("2026-10-26T00:00").atZone(berlin).toEpochSecond() * 1_000_000L;
		this.clock.setMicros(LocalDateTime.parse("2026-10-25T18:00").atZone(berlin).toEpochSecond() * 1_000_000L);
		Consumption reserved = consumed(policy, 4);
		Consumption late = consumed(policy, 1);
		Decision settled = settle(reserved, 25);
		assertThat(settled.allowed()).isFalse();
		assertThat(settled.remaining()).isZero();
		assertThat(settled.retryAfter().toNanos() / 1_000).isEqualTo(midnight - this.clock.micros());
		this.clock.setMicros(midnight - 1);
		assertThat(one(policy, 1).allowed()).as("a microsecond before local midnight").isFalse();
		this.clock.setMicros(midnight);
		assertThat(settle(late, 8).remaining()).as("yesterday's request owes the new day nothing").isEqualTo(10);
		assertThat(one(policy, 10).allowed()).isTrue();
	}

}
