package dev.ratelimit.rule;

import java.time.Duration;

import org.springframework.boot.convert.DurationStyle;

/**
 * Reads periods written as text (annotations, actuator overrides) exactly as Spring Boot binds a {@link Duration}
 * property, so that every place accepts, and explains, the same forms.
 */
public final class Periods {

	/** The accepted forms, for messages. */
	public static final String FORMS = "a number with a unit (500ms, 10s, 1m, 15m, 1h, 1d) or ISO-8601 (PT10S, PT15M);"
			+ " a number without a unit is read as milliseconds";

	private Periods() {
	}

	/**
	 * Formats a period in the short form people write, in the largest unit that is exact: {@code 10s}, {@code 15m},
	 * {@code 1d}, {@code 1500ms}.
	 */
	public static String format(Duration period) {
		long millis = period.toMillis();
		for (DurationStyleUnit unit : DurationStyleUnit.values()) {
			if (millis != 0 && millis % unit.millis == 0) {
				return (millis / unit.millis) + unit.suffix;
			}
		}
		return period.toString();
	}

	private enum DurationStyleUnit {

		DAYS(86_400_000, "d"), HOURS(3_600_000, "h"), MINUTES(60_000, "m"), SECONDS(1_000, "s"), MILLIS(1, "ms");

		private final long millis;

		private final String suffix;

		DurationStyleUnit(long millis, String suffix) {
			this.millis = millis;
			this.suffix = suffix;
		}

	}

	/**
	 * Parses a period.
	 * @param text the text, e.g. {@code 10s} or {@code PT10S}
	 * @return the duration
	 * @throws IllegalArgumentException naming the text and the accepted forms
	 */
	public static Duration parse(String text) {
		try {
			return DurationStyle.detectAndParse(text.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'" + text + "' is not a duration; use " + FORMS, ex);
		}
	}

}
