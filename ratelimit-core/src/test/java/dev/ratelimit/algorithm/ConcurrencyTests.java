package dev.ratelimit.algorithm;

import java.util.SplittableRandom;

import dev.ratelimit.algorithm.Concurrency.Change;
import dev.ratelimit.algorithm.Concurrency.Slot;
import dev.ratelimit.algorithm.Concurrency.State;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference maths of leases: what an admission holds, what release and renewal change, what is reclaimed, and
 * what retryAfter suggests.
 */
class ConcurrencyTests {

	private static final long T0 = 1_767_225_600_000_000L;

	private static final long TIMEOUT = 10_000_000;

	@Test
	void anAdmissionHoldsOneSlotPerUnitUnderItsLeaseId() {
		Outcome<State> outcome = lease("a").apply(null, T0, 2);
		assertThat(outcome.allowed()).isTrue();
		assertThat(outcome.remaining()).isEqualTo(1);
		assertThat(outcome.resetAfterMicros()).isEqualTo(TIMEOUT);
		assertThat(outcome.ttlMicros()).isEqualTo(TIMEOUT);
		assertThat(outcome.state().slots()).containsExactly(new Slot("a:1", T0 + TIMEOUT),
				new Slot("a:2", T0 + TIMEOUT));
		Outcome<State> second = lease("b").apply(outcome.state(), T0 + 4_000_000, 1);
		assertThat(second.remaining()).isZero();
		assertThat(second.resetAfterMicros()).as("until the earliest slot expires").isEqualTo(6_000_000);
		assertThat(second.ttlMicros()).as("until the latest slot expires").isEqualTo(TIMEOUT);
	}

	@Test
	void aCostAboveTheLimitIsNeverAdmittedAndInspectingChangesNothing() {
		State state = lease("a").apply(null, T0, 1).state();
		Outcome<State> never = lease("b").apply(state, T0, 4);
		assertThat(never.allowed()).isFalse();
		assertThat(never.retryAfterMicros()).isEqualTo(Outcome.NEVER);
		assertThat(never.remaining()).isEqualTo(2);
		Outcome<State> inspected = lease("b").apply(state, T0 + 1, 0);
		assertThat(inspected.allowed()).isTrue();
		assertThat(inspected.remaining()).isEqualTo(2);
		assertThat(inspected.state()).isSameAs(state);
	}

	@Test
	void aDenialSuggestsTheWaitUntilEnoughSlotsExpireBetweenOneMillisecondAndOneSecond() {
		State state = lease("a").apply(null, T0, 2).state();
		state = lease("b").apply(state, T0 + 9_999_500, 1).state();
		Outcome<State> soon = lease("c").apply(state, T0 + 9_999_900, 2);
		assertThat(soon.allowed()).isFalse();
		assertThat(soon.retryAfterMicros()).as("100 µs until both a slots expire").isEqualTo(1_000);
		Outcome<State> later = lease("c").apply(state, T0 + 9_999_000, 3);
		assertThat(later.retryAfterMicros()).as("until b expires: 10 s more").isEqualTo(1_000_000);
		Outcome<State> exact = lease("c").apply(state, T0 + 9_500_000, 1);
		assertThat(exact.retryAfterMicros()).isEqualTo(500_000);
		assertThat(lease("c").apply(state, T0 + 9_500_000 + 500_000, 1).allowed()).isTrue();
	}

	/**
	 * Over random histories without releases: retryAfter is in [1 ms, 1 s]; the request is admitted at retryAfter
	 * unless the wait was cut to 1 s, and denied a microsecond before unless it was raised to 1 ms.
	 */
	@Test
	void retryAfterIsTheClampedWaitUntilTheRequestFits() {
		SplittableRandom random = new SplittableRandom(42);
		int exact = 0;
		for (int history = 0; history < 200; history++) {
			long limit = random.nextLong(1, 10);
			long timeout = random.nextLong(500, 3_000_000);
			long now = T0;
			@Nullable State state = null;
			for (int operation = 0; operation < 200; operation++) {
				now += random.nextLong(0, timeout / 4 + 1);
				long cost = random.nextLong(1, limit + 1);
				Concurrency concurrency = new Concurrency(timeout, limit, "r" + operation);
				Outcome<State> outcome = concurrency.apply(state, now, cost);
				if (outcome.allowed()) {
					state = outcome.state();
					continue;
				}
				long retry = outcome.retryAfterMicros();
				assertThat(retry).isBetween(Concurrency.MIN_RETRY_MICROS, Concurrency.MAX_RETRY_MICROS);
				if (retry < Concurrency.MAX_RETRY_MICROS) {
					assertThat(concurrency.apply(state, now + retry, cost).allowed()).as("at %d", retry).isTrue();
				}
				if (retry > Concurrency.MIN_RETRY_MICROS) {
					assertThat(concurrency.apply(state, now + retry - 1, cost).allowed()).as("before %d", retry)
						.isFalse();
				}
				if (retry > Concurrency.MIN_RETRY_MICROS && retry < Concurrency.MAX_RETRY_MICROS) {
					exact++;
				}
			}
		}
		assertThat(exact).as("denials with an unclamped wait").isGreaterThan(100);
	}

	@Test
	void expiredSlotsAreReclaimedByTheNextAdmissionWhileASlotIsHeld() {
		State state = lease("a").apply(null, T0, 2).state();
		state = lease("b").apply(state, T0 + 5_000_000, 1).state();
		long afterA = T0 + TIMEOUT;
		assertThat(lease("c").reclaimable(state, afterA)).isEqualTo(2);
		Outcome<State> admitted = lease("c").apply(state, afterA, 1);
		assertThat(admitted.remaining()).isEqualTo(1);
		assertThat(admitted.state().slots()).extracting(Slot::member).containsExactly("b:1", "c:1");
		assertThat(lease("c").reclaimable(state, afterA + 5_000_000)).as("nothing held: no state").isZero();
		assertThat(lease("c").apply(state, afterA + 5_000_000, 1).state().slots()).extracting(Slot::member)
			.containsExactly("c:1");
	}

	@Test
	void releaseRemovesTheLeaseAndSaysWhetherItWasHeld() {
		State state = lease("a").apply(null, T0, 2).state();
		state = lease("b").apply(state, T0 + 1, 1).state();
		Change released = lease("a").release(state, T0 + 2, 2);
		assertThat(released.held()).isTrue();
		assertThat(released.state().slots()).extracting(Slot::member).containsExactly("b:1");
		assertThat(released.ttlMicros()).isEqualTo(TIMEOUT - 1);
		Change again = lease("a").release(released.state(), T0 + 3, 2);
		assertThat(again.held()).isFalse();
		assertThat(again.state()).isSameAs(released.state());
		Change expired = lease("b").release(released.state(), T0 + 1 + TIMEOUT, 1);
		assertThat(expired.held()).isFalse();
		assertThat(expired.state()).as("removed all the same").isNull();
		assertThat(lease("a").release(null, T0, 1).held()).isFalse();
	}

	@Test
	void releaseTouchesOnlyItsOwnSlots() {
		State state = lease("a").apply(null, T0, 1).state();
		state = lease("a:1").apply(state, T0, 1).state();
		state = lease("ab").apply(state, T0, 1).state();
		Change released = lease("a").release(state, T0, 1);
		assertThat(released.state().slots()).extracting(Slot::member).containsExactly("a:1:1", "ab:1");
	}

	@Test
	void renewalPushesAHeldLeaseForwardAndLeavesAnExpiredOne() {
		State state = lease("a").apply(null, T0, 2).state();
		Change renewed = lease("a").renew(state, T0 + 9_000_000, 2);
		assertThat(renewed.held()).isTrue();
		assertThat(renewed.state().slots()).containsExactly(new Slot("a:1", T0 + 19_000_000),
				new Slot("a:2", T0 + 19_000_000));
		assertThat(renewed.ttlMicros()).isEqualTo(TIMEOUT);
		Change steppedBack = lease("a").renew(renewed.state(), T0, 2);
		assertThat(steppedBack.state()).as("never earlier than it was").isEqualTo(renewed.state());
		Change expired = lease("a").renew(renewed.state(), T0 + 19_000_000, 2);
		assertThat(expired.held()).isFalse();
		assertThat(expired.state()).isSameAs(renewed.state());
		assertThat(lease("b").renew(renewed.state(), T0, 1).held()).isFalse();
	}

	private static Concurrency lease(String id) {
		return new Concurrency(TIMEOUT, 3, id);
	}

}
