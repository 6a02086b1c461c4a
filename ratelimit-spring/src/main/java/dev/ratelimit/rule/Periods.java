package dev.ratelimit.rule;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads periods written as text (annotations, actuator overrides) exactly as Spring Boot binds a {@link Duration}
 * property (its {@code DurationStyle}: the simple form or ISO-8601), so that every place accepts, and explains, the
 * same forms. Written here rather than calling Boot's, so that this module works in a Spring application without
 * Spring Boot; {@code PeriodsTests} holds it to Boot's parser.
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

	private static final Pattern SIMPLE = Pattern.compile("^([+-]?\\d+)([a-zA-Z]{0,2})$");

	private static final Pattern ISO_8601 = Pattern.compile("^[+-]?[pP].*$");

	private static Duration detectAndParse(String text) {
		Matcher simple = SIMPLE.matcher(text);
		if (simple.matches()) {
			long amount = Long.parseLong(simple.group(1));
			return Duration.of(amount, unit(simple.group(2), text));
		}
		if (ISO_8601.matcher(text).matches()) {
			try {
				return Duration.parse(text);
			}
			catch (RuntimeException ex) {
				throw new IllegalArgumentException("'" + text + "' is not a valid ISO-8601 duration", ex);
			}
		}
		throw new IllegalArgumentException("'" + text + "' is not a valid duration");
	}

	private static ChronoUnit unit(String suffix, String text) {
		return switch (suffix.toLowerCase(Locale.ROOT)) {
			case "", "ms" -> ChronoUnit.MILLIS;
			case "ns" -> ChronoUnit.NANOS;
			case "us" -> ChronoUnit.MICROS;
			case "s" -> ChronoUnit.SECONDS;
			case "m" -> ChronoUnit.MINUTES;
			case "h" -> ChronoUnit.HOURS;
			case "d" -> ChronoUnit.DAYS;
			default -> throw new IllegalArgumentException("'" + text + "' has an unknown unit '" + suffix + "'");
		};
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
			return detectAndParse(text.trim());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("'" + text + "' is not a duration; use " + FORMS, ex);
		}
	}

}
