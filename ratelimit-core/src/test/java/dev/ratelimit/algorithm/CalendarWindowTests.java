package dev.ratelimit.algorithm;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.CalendarPeriod.Unit;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The Java reference of calendar quotas on a driven clock: a day in Europe/Berlin resets at local midnight on both
 * days of 2026 on which the clocks change (a 23-hour and a 25-hour day) and on an ordinary day, a month on the 1st, a
 * week on its first day; one second before midnight the reset is one second away.
 */
class CalendarWindowTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	@ParameterizedTest(name = "{0}: a day of {1} hours")
	@CsvSource({ "2026-03-29, 23", "2026-10-25, 25", "2026-06-17, 24" })
	void dayQuotaResetsAtLocalMidnight(String date, int hours) {
		LocalDateTime midnight = LocalDateTime.parse(date + "T00:00");
		MutableClock clock = new MutableClock(micros(midnight.plusHours(1)));
		LocalRateLimitStore store = new LocalRateLimitStore(100, clock);
		RateLimitPolicy policy = RateLimitPolicy.calendar("daily", 3, CalendarPeriod.of(Unit.DAY, BERLIN));
		for (int i = 0; i < 3; i++) {
			assertThat(take(store, policy).allowed()).isTrue();
		}
		assertThat(take(store, policy).allowed()).isFalse();
		long nextMidnight = micros(midnight.plusDays(1));
		assertThat(nextMidnight - micros(midnight)).isEqualTo(Duration.ofHours(hours).toNanos() / 1_000);
		clock.setMicros(nextMidnight - 1_000_000);
		Decision lastSecond = take(store, policy);
		assertThat(lastSecond.allowed()).isFalse();
		assertThat(lastSecond.resetAfter()).isEqualTo(Duration.ofSeconds(1));
		assertThat(lastSecond.retryAfter()).isEqualTo(Duration.ofSeconds(1));
		clock.setMicros(nextMidnight - 1);
		assertThat(take(store, policy).allowed()).isFalse();
		clock.setMicros(nextMidnight);
		Decision afterMidnight = take(store, policy);
		assertThat(afterMidnight.allowed()).isTrue();
		assertThat(afterMidnight.remaining()).isEqualTo(2);
		assertThat(afterMidnight.resetAfter()).isEqualTo(Duration.ofDays(1));
	}

	@Test
	void dayQuotaOnEachDayOfTheClockChangeLastsTheDayLongAt235959() {
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, BERLIN);
		// 23:59:59 local on each side of both changes: one second to the reset
		for (String date : List.of("2026-03-28", "2026-03-29", "2026-10-24", "2026-10-25", "2026-12-31")) {
			long at = micros(LocalDateTime.parse(date + "T23:59:59"));
			Outcome<FixedWindow.State> outcome = new CalendarWindow(days, 10).apply(null, at, 1);
			assertThat(outcome.resetAfterMicros()).as(date).isEqualTo(1_000_000);
		}
	}

	@Test
	void monthQuotaResetsOnTheFirst() {
		MutableClock clock = new MutableClock(micros(LocalDateTime.parse("2026-02-03T12:00")));
		LocalRateLimitStore store = new LocalRateLimitStore(100, clock);
		RateLimitPolicy policy = RateLimitPolicy.calendar("monthly", 2, CalendarPeriod.of(Unit.MONTH, BERLIN));
		take(store, policy);
		take(store, policy);
		assertThat(take(store, policy).allowed()).isFalse();
		clock.setMicros(micros(LocalDateTime.parse("2026-02-28T23:59:59")));
		Decision lastSecond = take(store, policy);
		assertThat(lastSecond.allowed()).isFalse();
		assertThat(lastSecond.resetAfter()).isEqualTo(Duration.ofSeconds(1));
		clock.setMicros(micros(LocalDateTime.parse("2026-03-01T00:00")));
		Decision march = take(store, policy);
		assertThat(march.allowed()).isTrue();
		// March 2026 in Berlin loses an hour on the 29th
		assertThat(march.resetAfter()).isEqualTo(Duration.ofDays(31).minusHours(1));
	}

	@Test
	void weekStartsOnMondayOrTheConfiguredDay() {
		long wednesday = micros(LocalDateTime.parse("2026-06-17T10:00"));
		assertThat(CalendarPeriod.of(Unit.WEEK, BERLIN).windowStart(wednesday))
			.isEqualTo(micros(LocalDateTime.parse("2026-06-15T00:00")));
		assertThat(new CalendarPeriod(Unit.WEEK, BERLIN, DayOfWeek.SUNDAY).windowStart(wednesday))
			.isEqualTo(micros(LocalDateTime.parse("2026-06-14T00:00")));
	}

	@Test
	void midnightThatAClockChangeSkipsStartsTheDayAtItsFirstMoment() {
		// Santiago (Chile) moves its clocks forward at midnight: 2026-09-06 starts at 01:00 local
		ZoneId santiago = ZoneId.of("America/Santiago");
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, santiago);
		long noon = LocalDateTime.parse("2026-09-06T12:00").atZone(santiago).toEpochSecond() * 1_000_000L;
		long start = days.windowStart(noon);
		assertThat(java.time.Instant.ofEpochSecond(start / 1_000_000L).atZone(santiago).toLocalDateTime())
			.isEqualTo(LocalDateTime.parse("2026-09-06T01:00"));
		assertThat(days.nextStart(start) - start).isEqualTo(Duration.ofHours(23).toNanos() / 1_000);
	}

	@Test
	void boundariesAreFiveConsecutiveWindowStarts() {
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, BERLIN);
		long[] boundaries = days.boundaries(micros(LocalDateTime.parse("2026-10-25T15:00")));
		assertThat(boundaries).containsExactly(micros(LocalDateTime.parse("2026-10-24T00:00")),
				micros(LocalDateTime.parse("2026-10-25T00:00")), micros(LocalDateTime.parse("2026-10-26T00:00")),
				micros(LocalDateTime.parse("2026-10-27T00:00")), micros(LocalDateTime.parse("2026-10-28T00:00")));
	}

	@Test
	void stateOfTheNextWindowCountsUntilItEndsWhenTheClockStepsBack() {
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, BERLIN);
		CalendarWindow window = new CalendarWindow(days, 5);
		long tomorrow = micros(LocalDateTime.parse("2026-06-18T00:00"));
		Outcome<FixedWindow.State> counted = window.apply(null, tomorrow + 10, 4);
		Outcome<FixedWindow.State> steppedBack = window.apply(counted.state(), tomorrow - 10, 1);
		assertThat(steppedBack.allowed()).isTrue();
		assertThat(steppedBack.remaining()).isZero();
		assertThat(steppedBack.resetAfterMicros()).isEqualTo(Duration.ofDays(1).toNanos() / 1_000 + 10);
	}

	@Test
	void policyRefusesAnotherAlgorithmSpreadWindowsOrAPeriod() {
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, BERLIN);
		assertThatExceptionOfType(RateLimitPolicy.InvalidPolicyException.class)
			.isThrownBy(() -> new RateLimitPolicy("q", dev.ratelimit.Algorithm.GCRA, 5, Duration.ofDays(1), 0, false,
					days))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(RateLimitPolicy.Field.CALENDAR));
		assertThatExceptionOfType(RateLimitPolicy.InvalidPolicyException.class)
			.isThrownBy(() -> new RateLimitPolicy("q", dev.ratelimit.Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1),
					0, false, days))
			.satisfies((ex) -> assertThat(ex.field()).isEqualTo(RateLimitPolicy.Field.PERIOD));
		assertThat(RateLimitPolicy.calendar("q", 5, days).withLimit(7).calendar()).isEqualTo(days);
	}

	private static Decision take(LocalRateLimitStore store, RateLimitPolicy policy) {
		return store.evaluate(List.of(new RateLimitCheck(policy, "customer-1", 1, false))).get(0);
	}

	private static long micros(LocalDateTime local) {
		return local.atZone(BERLIN).toEpochSecond() * 1_000_000L;
	}

}
