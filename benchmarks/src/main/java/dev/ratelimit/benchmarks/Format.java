package dev.ratelimit.benchmarks;

import java.util.Locale;

/** Number formats shared by the report and the chart. */
final class Format {

	private Format() {
	}

	/** {@code 52,340}. */
	static String count(double value) {
		return String.format(Locale.ROOT, "%,.0f", value);
	}

	/** {@code 1.23x}. */
	static String ratio(double value) {
		return String.format(Locale.ROOT, "%.2fx", value);
	}

	/** Microseconds: one decimal below 100, none above. */
	static String micros(double value) {
		return (value < 100) ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%.0f", value);
	}

	/** {@code 0.93}. */
	static String decimal(double value) {
		return String.format(Locale.ROOT, "%.2f", value);
	}

}
