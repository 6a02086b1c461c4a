package dev.ratelimit;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Objects;

/**
 * Windows aligned to the calendar of a time zone: each day, week or month of that zone is one window, from its first
 * moment (local midnight, or the first moment of the day when a transition skips midnight) to the first moment of the
 * next. Windows follow the zone's rules, so a day on which clocks go forward lasts 23 hours and one on which they go
 * back 25. Times are microseconds since the epoch.
 *
 * @param unit the length of a window
 * @param zone the time zone whose calendar the windows follow
 * @param weekStart the first day of a week (only for {@link Unit#WEEK})
 */
public record CalendarPeriod(Unit unit, ZoneId zone, DayOfWeek weekStart) {

	/** Boundaries passed to the script: the previous window's start, then four boundaries from the current window. */
	public static final int BOUNDARIES = 5;

	public CalendarPeriod {
		Objects.requireNonNull(unit, "unit");
		Objects.requireNonNull(zone, "zone");
		Objects.requireNonNull(weekStart, "weekStart");
	}

	/** Returns a calendar period whose weeks start on Monday. */
	public static CalendarPeriod of(Unit unit, ZoneId zone) {
		return new CalendarPeriod(unit, zone, DayOfWeek.MONDAY);
	}

	/** Returns the start of the window that holds a time. */
	public long windowStart(long micros) {
		LocalDate date = Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L)
			.atZone(this.zone)
			.toLocalDate();
		return startOf(firstDay(date));
	}

	/** Returns the start of the window after the one that starts at {@code windowStart}. */
	public long nextStart(long windowStart) {
		LocalDate first = firstDay(Instant.ofEpochSecond(Math.floorDiv(windowStart, 1_000_000L)).atZone(this.zone)
			.toLocalDate());
		return startOf(switch (this.unit) {
			case DAY -> first.plusDays(1);
			case WEEK -> first.plusWeeks(1);
			case MONTH -> first.plusMonths(1);
		});
	}

	/** Returns whether a time is the start of a window. */
	public boolean isWindowStart(long micros) {
		return windowStart(micros) == micros;
	}

	/**
	 * Returns {@value #BOUNDARIES} window starts around a time: that of the window before the one holding it, that of
	 * the window holding it, and the next three. A script deciding on its own clock picks the window that holds its
	 * time among them, so a clock that is ahead of or behind this one by less than a window still finds its window.
	 */
	public long[] boundaries(long micros) {
		long[] boundaries = new long[BOUNDARIES];
		long current = windowStart(micros);
		boundaries[0] = windowStart(current - 1);
		boundaries[1] = current;
		for (int i = 2; i < BOUNDARIES; i++) {
			boundaries[i] = nextStart(boundaries[i - 1]);
		}
		return boundaries;
	}

	/**
	 * Returns the nominal length of a window, the policy's {@code period} (and the {@code w} of the
	 * {@code RateLimit-Policy} header): a day of 24 hours, a week of 7 days, a month of 31 days (the longest). A
	 * window's actual end is what the reset fields of a decision give.
	 */
	public Duration nominalLength() {
		return switch (this.unit) {
			case DAY -> Duration.ofDays(1);
			case WEEK -> Duration.ofDays(7);
			case MONTH -> Duration.ofDays(31);
		};
	}

	private LocalDate firstDay(LocalDate date) {
		return switch (this.unit) {
			case DAY -> date;
			case WEEK -> date.with(TemporalAdjusters.previousOrSame(this.weekStart));
			case MONTH -> date.withDayOfMonth(1);
		};
	}

	private long startOf(LocalDate date) {
		Instant start = date.atStartOfDay(this.zone).toInstant();
		return Math.addExact(Math.multiplyExact(start.getEpochSecond(), 1_000_000L), start.getNano() / 1_000);
	}

	@Override
	public String toString() {
		return this.unit.configName() + " in " + this.zone
				+ ((this.unit == Unit.WEEK) ? " from " + this.weekStart.name().toLowerCase(Locale.ROOT) : "");
	}

	/** The length of a calendar window. */
	public enum Unit {

		/** A day, from local midnight. */
		DAY,

		/** A week, from the first moment of its first day. */
		WEEK,

		/** A month, from the first moment of its 1st. */
		MONTH;

		/** Returns the name used in configuration, e.g. {@code day}. */
		public String configName() {
			return name().toLowerCase(Locale.ROOT);
		}

	}

}
