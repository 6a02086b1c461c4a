package dev.ratelimit;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.UUID;

import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

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
	@EnumSource(Algorithm.class)
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

	@ParameterizedTest
	@EnumSource(Algorithm.class)
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
	@EnumSource(Algorithm.class)
	void costConsumesThatManyUnits(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 10, Duration.ofHours(1));
		assertThat(one(policy, 7).remaining()).isEqualTo(3);
		Decision denied = one(policy, 4);
		assertThat(denied.allowed()).isFalse();
		assertThat(denied.remaining()).isEqualTo(3);
		assertThat(one(policy, 3).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
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
	@EnumSource(Algorithm.class)
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
	@EnumSource(Algorithm.class)
	void peekAnswersWhatEvaluateWouldAndConsumesNothing(Algorithm algorithm) {
		RateLimitPolicy policy = policy(algorithm, 5, Duration.ofMinutes(1));
		// admitted, admitted, denied, never admitted, admitted, denied: each peeked twice, then evaluated
		for (long cost : new long[] { 0, 1, 3, 2, 6, 1, 1 }) {
			List<RateLimitCheck> request = List.of(RateLimitCheck.of(policy, this.subject, cost));
			List<Decision> peeked = this.store.peek(request);
			assertThat(this.store.peek(request)).as("peeked again, cost %d", cost).isEqualTo(peeked);
			assertThat(this.store.evaluate(request)).as("evaluated, cost %d", cost).isEqualTo(peeked);
			this.clock.advance(Duration.ofMillis(1_500));
		}
		assertThat(peek(policy).remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
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
	@EnumSource(Algorithm.class)
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
			assertThat(this.store.evaluate(request)).isEqualTo(peeked);
		}
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
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
	@EnumSource(Algorithm.class)
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

	@Test
	void costsOfTensOfThousandsOfEntriesFitInOneCall() {
		RateLimitPolicy policy = policy(Algorithm.SLIDING_WINDOW_LOG, RateLimitPolicy.MAX_LOG_LIMIT, Duration.ofHours(1));
		Decision first = one(policy, 10_000);
		assertThat(first.allowed()).isTrue();
		assertThat(first.remaining()).isEqualTo(90_000);
		Decision all = one(policy, 90_000);
		assertThat(all.remaining()).isZero();
		assertThat(one(policy, 1).allowed()).isFalse();
	}

	@Test
	void decisionsUseMicrosecondDurations() {
		RateLimitPolicy policy = policy(Algorithm.GCRA, 3, Duration.ofSeconds(1));
		Decision decision = one(policy, 1);
		assertThat(decision.resetAfter()).isEqualTo(Duration.of(333_334, ChronoUnit.MICROS));
	}

}
