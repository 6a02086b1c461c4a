package dev.ratelimit.algorithm;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.test.RandomCosts;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reference algorithms when the clock steps back (a wall clock stepped by NTP, a Redis server whose clock is
 * set back): every algorithm reads its state as absolute times, so a step back never gives quota back, and every
 * denial's {@code retryAfter} is exactly when the same request is admitted again, whatever the clock did before.
 */
class ClockStepsBackTests {

	private static final long T0 = 1_767_225_600_000_000L;

	private static final long MS = 1_000;

	/**
	 * golang.org/x/time/rate's "jump backwards" table (10 per second, burst 3, the clock going from t1 back to t0),
	 * with a 10 s step back at the end. x/time/rate keeps its two remaining tokens across the step (two admitted at
	 * t0); the buckets here are one absolute time, like GCRA's TAT, and the step makes them look emptier (one).
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "TOKEN_BUCKET", "LEAKY_BUCKET", "GCRA" })
	void bucketsFollowTheirAbsoluteStateWhenTheClockStepsBack(Algorithm algorithm) {
		RateLimitPolicy policy = RateLimitPolicy.of("jump", algorithm, 10, Duration.ofSeconds(1)).withBurst(3);
		Subject subject = new Subject(policy);
		long t1 = T0 + 100 * MS;
		long t2 = T0 + 200 * MS;
		long back = t2 - 10_000 * MS;
		List<Row> table = List.of(
				// at, allowed, remaining, resetAfter, retryAfter
				new Row(t1, true, 2, 100 * MS, 0), // start at t1
				new Row(T0, true, 0, 300 * MS, 0), // back to t0: the token taken at t1 is 100 ms further away
				new Row(T0, false, 0, 300 * MS, 100 * MS), new Row(T0, false, 0, 300 * MS, 100 * MS),
				new Row(T0, false, 0, 300 * MS, 100 * MS),
				new Row(t1, true, 0, 300 * MS, 0), // got a token
				new Row(t1, false, 0, 300 * MS, 100 * MS), new Row(t1, false, 0, 300 * MS, 100 * MS),
				new Row(t2, true, 0, 300 * MS, 0), // got another token
				new Row(t2, false, 0, 300 * MS, 100 * MS), new Row(t2, false, 0, 300 * MS, 100 * MS),
				new Row(back, false, 0, 10_300 * MS, 10_100 * MS), // 10 s back: full only at t2 + 300 ms
				new Row(back + 10_100 * MS - 1, false, 0, 200 * MS + 1, 1), // a microsecond before retryAfter
				new Row(back + 10_100 * MS, true, 0, 300 * MS, 0)); // at retryAfter
		for (int i = 0; i < table.size(); i++) {
			Row row = table.get(i);
			Outcome<Object> outcome = subject.request(row.at(), 1);
			assertThat(new Row(row.at(), outcome.allowed(), outcome.remaining(), outcome.resetAfterMicros(),
					outcome.retryAfterMicros()))
				.as("row %d, at t0 %+d µs", i + 1, row.at() - T0)
				.isEqualTo(row);
		}
	}

	/**
	 * A window that the clock steps back out of stays the current window: the units it counted are not given back,
	 * and the wait is measured to its end (for the counter, one microsecond more, when those 3 units, then the
	 * previous window, weigh 2).
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void windowsKeepALaterWindowWhenTheClockStepsBackOutOfIt(Algorithm algorithm) {
		RateLimitPolicy policy = RateLimitPolicy.of("window", algorithm, 3, Duration.ofSeconds(1));
		Subject subject = new Subject(policy);
		long later = T0 + 1_200 * MS;
		assertThat(subject.request(later, 3).allowed()).isTrue();
		Outcome<Object> back = subject.request(T0 + 900 * MS, 1);
		assertThat(back.allowed()).as("300 ms back, into the window before").isFalse();
		assertThat(back.remaining()).isZero();
		long retry = (algorithm == Algorithm.FIXED_WINDOW) ? 1_100 * MS : 1_100 * MS + 1;
		assertThat(back.retryAfterMicros()).isEqualTo(retry);
		assertThat(subject.request(T0 + 900 * MS + retry, 1).allowed()).isTrue();
	}

	/**
	 * After a denial with {@code retryAfter} R at t, the same request at t + R (and no other traffic in between) is
	 * admitted, and one microsecond earlier it is still denied: over random sequences whose clock steps forward and
	 * back, by microseconds up to days. Concurrency's retryAfter is a suggested wait, clamped to [1 ms, 1 s]
	 * ({@code ConcurrencyTests}).
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "CONCURRENCY")
	void everyAlgorithmHonoursItsOwnRetryAfterWhateverTheClockDidBefore(Algorithm algorithm) {
		int[] denials = { 0 };
		randomHistories(algorithm, (subject, state, now, cost, outcome, what) -> {
			if (!outcome.allowed() && outcome.retryAfterMicros() != Outcome.NEVER) {
				denials[0]++;
				long retry = outcome.retryAfterMicros();
				assertThat(subject.algorithm.apply(state, now + retry, cost).allowed())
					.as("at retryAfter %d: %s", retry, what)
					.isTrue();
				assertThat(subject.algorithm.apply(state, now + retry - 1, cost).allowed())
					.as("one microsecond before retryAfter %d: %s", retry, what)
					.isFalse();
			}
		});
		assertThat(denials[0]).as("denials checked").isGreaterThan(1_000);
	}

	/**
	 * Whatever the state, the clock stepping back (by 1 µs, a third of the period, a period, 10 s, three periods)
	 * never leaves more remaining than before the step: no algorithm gives quota back.
	 */
	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void aStepBackNeverGivesQuotaBack(Algorithm algorithm) {
		randomHistories(algorithm, (subject, state, now, cost, outcome, what) -> {
			long before = subject.algorithm.apply(state, now, 0).remaining();
			long period = subject.periodMicros;
			for (long back : new long[] { 1, period / 3 + 1, period, 10_000_000, 3 * period }) {
				assertThat(subject.algorithm.apply(state, now - back, 0).remaining())
					.as("%d µs back: %s", back, what)
					.isLessThanOrEqualTo(before);
			}
		});
	}

	/**
	 * Runs 200 random sequences of 300 requests for random policies of an algorithm, the clock stepping forward and
	 * (one step in five) back by microseconds up to days, and hands every request to a check. The seed is random,
	 * printed on failure, and replayed with the system property {@code ratelimit.clock.seed}.
	 */
	private static void randomHistories(Algorithm algorithm, RequestCheck check) {
		Long configured = Long.getLong("ratelimit.clock.seed");
		long seed = (configured != null) ? configured : new SplittableRandom().nextLong();
		SplittableRandom random = new SplittableRandom(seed);
		for (int sequence = 0; sequence < 200; sequence++) {
			RateLimitPolicy policy = randomPolicy(random, algorithm);
			Subject subject = new Subject(policy);
			long now = T0 + random.nextLong(1_000_000_000_000L);
			for (int operation = 0; operation < 300; operation++) {
				now += randomStep(random, policy.periodMicros());
				long cost = RandomCosts.of(random, policy);
				@Nullable Object state = subject.state;
				Outcome<Object> outcome = subject.request(now, cost);
				check.check(subject, state, now, cost, outcome, "seed " + seed + ", " + policy + ", operation "
						+ operation + ", cost " + cost + " at " + now + ", state " + state + ", " + outcome);
			}
		}
	}

	private static RateLimitPolicy randomPolicy(SplittableRandom random, Algorithm algorithm) {
		long[] periods = { 1_000, 7_777, 100_000, 1_000_000, 60_000_000, 3_600_000_000L, 86_400_000_000L,
				31_622_400_000_000L };
		long periodMicros = periods[random.nextInt(periods.length)];
		boolean entryPerUnit = algorithm == Algorithm.SLIDING_WINDOW_LOG || algorithm == Algorithm.CONCURRENCY;
		long limit = (!entryPerUnit && random.nextInt(4) == 0)
				? random.nextLong(1, Math.min(periodMicros, 10_000_000) + 1) : random.nextLong(1, 40);
		RateLimitPolicy policy = RateLimitPolicy.of("p", algorithm, limit, Duration.ofNanos(periodMicros * 1_000));
		if (algorithm.usesBurst() && random.nextBoolean()) {
			// RateLimitPolicy keeps burst * interval within 10^15 µs
			long most = Math.min(60, 1_000_000_000_000_000L / policy.intervalMicros());
			policy = policy.withBurst(random.nextLong(1, most + 1));
		}
		if (algorithm == Algorithm.FIXED_WINDOW && random.nextBoolean()) {
			policy = policy.withSpreadWindows(true);
		}
		return policy;
	}

	/** Steps of every size relative to the period, forwards and (one in five) backwards. */
	private static long randomStep(SplittableRandom random, long periodMicros) {
		int kind = random.nextInt(100);
		long size = switch (kind % 5) {
			case 0 -> 0;
			case 1 -> random.nextLong(1, 1_000);
			case 2 -> random.nextLong(1, periodMicros + 1);
			case 3 -> random.nextLong(1, 20_000_000);
			default -> random.nextLong(1, 3 * periodMicros + 1);
		};
		return (kind < 20) ? -size : (kind < 60) ? size / 8 : size;
	}

	/**
	 * @param at the time in microseconds
	 * @param allowed whether admitted
	 * @param remaining units remaining
	 * @param resetAfter time until the quota is restored, in microseconds
	 * @param retryAfter wait until admitted, in microseconds
	 */
	private record Row(long at, boolean allowed, long remaining, long resetAfter, long retryAfter) {
	}

	@FunctionalInterface
	private interface RequestCheck {

		void check(Subject subject, @Nullable Object state, long now, long cost, Outcome<Object> outcome, String what);

	}

	/**
	 * One subject under one policy: the state a store would keep, committed as the stores commit it. Each request
	 * acquires under its own lease id, as in a store, and a distinct request presents a value of its own.
	 */
	private static final class Subject {

		private final RateLimitPolicy policy;

		private final LimitAlgorithm<Object> algorithm;

		private final long periodMicros;

		private int requests;

		private @Nullable Object state;

		Subject(RateLimitPolicy policy) {
			this.policy = policy;
			this.algorithm = algorithm("");
			this.periodMicros = policy.periodMicros();
		}

		@SuppressWarnings("unchecked")
		private LimitAlgorithm<Object> algorithm(String leaseId) {
			if (this.policy.algorithm() == Algorithm.DISTINCT) {
				// each request presents a new value (its id); "" is one never presented
				return (LimitAlgorithm<Object>) (LimitAlgorithm<?>) new Distinct(this.policy.periodMicros(),
						this.policy.limit(), leaseId);
			}
			return (LimitAlgorithm<Object>) Algorithms.of(this.policy, "subject", leaseId);
		}

		Outcome<Object> request(long now, long cost) {
			Outcome<Object> outcome = algorithm("r" + ++this.requests).apply(this.state, now, cost);
			if (outcome.allowed() && cost > 0) {
				this.state = outcome.state();
			}
			return outcome;
		}

	}

}
