package dev.ratelimit.client;

import java.time.Clock;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

import org.jspecify.annotations.Nullable;

/**
 * Reads an HTTP {@code Retry-After} header (RFC 9110, section 10.2.3): a number of seconds, or an HTTP date.
 */
public final class RetryAfter {

	private RetryAfter() {
	}

	/**
	 * Returns the wait a {@code Retry-After} value asks for.
	 * @param value the header's value, or {@code null} when absent
	 * @param clock the clock an HTTP date is measured from
	 * @return the wait (zero for a date in the past), or {@code null} when the value is absent or is neither a
	 * non-negative number of seconds nor an HTTP date
	 */
	public static @Nullable Duration parse(@Nullable String value, Clock clock) {
		if (value == null || value.isBlank()) {
			return null;
		}
		String trimmed = value.trim();
		if (isDigits(trimmed)) {
			try {
				return Duration.ofSeconds(Long.parseLong(trimmed));
			}
			catch (NumberFormatException ex) {
				return null;
			}
		}
		try {
			ZonedDateTime at = ZonedDateTime.parse(trimmed, DateTimeFormatter.RFC_1123_DATE_TIME);
			Duration wait = Duration.between(clock.instant(), at.toInstant());
			return wait.isNegative() ? Duration.ZERO : wait;
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	private static boolean isDigits(String value) {
		for (int i = 0; i < value.length(); i++) {
			if (!Character.isDigit(value.charAt(i))) {
				return false;
			}
		}
		return true;
	}

}
