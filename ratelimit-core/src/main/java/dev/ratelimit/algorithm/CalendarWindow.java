package dev.ratelimit.algorithm;

import dev.ratelimit.CalendarPeriod;
import org.jspecify.annotations.Nullable;

/**
 * Calendar window: counts units per day, week or month of a time zone ({@link CalendarPeriod}), a fixed window whose
 * boundaries follow the calendar (a day on which clocks change lasts 23 or 25 hours, a month 28 to 31 days). The state
 * is the {@link FixedWindow}'s, its start being the window's first moment. A state of the current window, or of the
 * next one (the clock stepped back out of it), counts until that window ends; a state of an earlier window, of a
 * window further ahead, or that does not start a window of this calendar (the rule's zone or unit changed), counts as
 * empty.
 * <ul>
 * <li>remaining = {@code limit - count}</li>
 * <li>resetAfter = nextAfter = retryAfter when denied = time until the window ends (0 when it counts nothing)</li>
 * </ul>
 *
 * @param calendar the windows
 * @param limit units per window
 */
public record CalendarWindow(CalendarPeriod calendar, long limit) implements LimitAlgorithm<FixedWindow.State> {

	@Override
	public Outcome<FixedWindow.State> apply(FixedWindow.@Nullable State state, long now, long cost) {
		long windowStart = this.calendar.windowStart(now);
		long windowEnd = this.calendar.nextStart(windowStart);
		long count = 0;
		if (state != null && (state.windowStart() == windowStart || state.windowStart() == windowEnd)) {
			if (state.windowStart() == windowEnd) {
				windowEnd = this.calendar.nextStart(windowEnd);
			}
			windowStart = state.windowStart();
			count = state.count();
		}
		return FixedWindow.decide(state, windowStart, windowEnd - now, count, this.limit, cost);
	}

	/**
	 * Adds the units to the window the request was admitted in if that is still the current window (or the next one,
	 * which the clock stepped back out of): to its count if the state holds it, else starting it; a later window owes
	 * nothing.
	 */
	@Override
	public FixedWindow.@Nullable State charge(FixedWindow.@Nullable State state, long now, long admittedAt,
			long units) {
		long admittedWindow = this.calendar.windowStart(admittedAt);
		if (admittedWindow < this.calendar.windowStart(now)) {
			return state;
		}
		if (state != null && state.windowStart() == admittedWindow) {
			return new FixedWindow.State(admittedWindow, state.count() + units);
		}
		return (state == null || state.windowStart() < admittedWindow) ? new FixedWindow.State(admittedWindow, units)
				: state;
	}

	/**
	 * Takes the units off the window they were counted in, if the state still holds that window and it is not older
	 * than the window before now's (an older one counts nothing any more; the script knows the boundaries from that
	 * window on only).
	 */
	@Override
	public FixedWindow.@Nullable State refund(FixedWindow.@Nullable State state, long now, long admittedAt,
			long cost) {
		if (state == null) {
			return null;
		}
		long admittedWindow = this.calendar.windowStart(admittedAt);
		long previousWindow = this.calendar.windowStart(this.calendar.windowStart(now) - 1);
		return (state.windowStart() == admittedWindow && admittedWindow >= previousWindow)
				? new FixedWindow.State(state.windowStart(), Math.max(0, state.count() - cost)) : state;
	}

}
