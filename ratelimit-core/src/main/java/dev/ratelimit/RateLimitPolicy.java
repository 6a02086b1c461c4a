package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What a rule allows: {@code limit} units per {@code period}, computed by an {@link Algorithm}.
 * <p>
 * {@code burst} is the bucket capacity of {@link Algorithm#TOKEN_BUCKET}, {@link Algorithm#LEAKY_BUCKET} and
 * {@link Algorithm#GCRA} (how many units may arrive at once; {@code 0} means "same as limit"); the window
 * algorithms have no burst and reject one. {@code spreadWindows} offsets each key's
 * {@link Algorithm#FIXED_WINDOW fixed window} by a hash of the key so that clients do not all reset at once.
 * <p>
 * A {@link Algorithm#CONCURRENCY concurrency} policy ({@link #concurrency}) admits at most {@code limit} units in
 * flight at once; it has no period, and its {@code period} is the lease timeout instead: how long an admitted
 * request holds its slots unless it releases or renews them first.
 * <p>
 * Values are bounded so that every intermediate value of the maths stays below 2<sup>53</sup> microseconds, the
 * range in which Lua's numbers are exact integers: period (or lease timeout) from 1 ms to 366 days, at most one unit
 * per microsecond, capacity &times; interval at most 10<sup>15</sup> µs, and at most 100,000 for the sliding log and
 * the concurrency limit (one Redis entry per unit).
 *
 * @param name the rule name, 1 to 32 characters of {@code [A-Za-z0-9._-]}; part of every Redis key
 * @param algorithm the algorithm
 * @param limit units admitted per period, at least 1 (for a concurrency policy: units in flight at once)
 * @param period the period (for a concurrency policy: the lease timeout)
 * @param burst the bucket capacity, or 0 for the default ({@code limit})
 * @param spreadWindows whether fixed windows start at a per-key offset
 * @param calendar for a calendar quota, the calendar its fixed windows follow (then {@code period} is the
 * {@link CalendarPeriod#nominalLength() nominal length} of a window); else {@code null}
 * @param warmUp for {@link Algorithm#GCRA} and {@link Algorithm#TOKEN_BUCKET}: how long a key is used after idleness
 * before it admits at the full rate, {@link Duration#ZERO} for none; a key unused for this long is cold again
 * @param coldFactor how much slower a cold key admits: at {@code limit / coldFactor}, with {@code burst / coldFactor}
 * (at least 1); from 1 to 100, meaningful with a warm-up only
 */
public record RateLimitPolicy(String name, Algorithm algorithm, long limit, Duration period, long burst,
		boolean spreadWindows, @Nullable CalendarPeriod calendar, Duration warmUp, double coldFactor) {

	/** The default {@link #coldFactor()}, as Guava's {@code SmoothWarmingUp}. */
	public static final double DEFAULT_COLD_FACTOR = 3;

	/** Upper bound of a period. */
	public static final Duration MAX_PERIOD = Duration.ofDays(366);

	/** Upper bound of the sliding log's limit. */
	public static final long MAX_LOG_LIMIT = 100_000;

	private static final long MAX_CAPACITY_MICROS = 1_000_000_000_000_000L;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,32}");

	public RateLimitPolicy {
		Objects.requireNonNull(name, "name");
		Objects.requireNonNull(algorithm, "algorithm");
		Objects.requireNonNull(period, "period");
		checkName(name);
		if (limit < 1) {
			throw new InvalidPolicyException(Field.LIMIT, "limit must be at least 1 but was " + limit);
		}
		boolean concurrency = algorithm == Algorithm.CONCURRENCY;
		Field periodField = concurrency ? Field.LEASE_TIMEOUT : Field.PERIOD;
		if (period.isZero() || period.isNegative()) {
			throw new InvalidPolicyException(periodField, periodField.propertyName() + " must be positive but was "
					+ period);
		}
		if (period.compareTo(Duration.ofMillis(1)) < 0 || period.compareTo(MAX_PERIOD) > 0) {
			throw new InvalidPolicyException(periodField, periodField.propertyName() + " must be between 1ms and 366d"
					+ " but was " + period);
		}
		long periodMicros = toMicros(period);
		if (!concurrency && limit > periodMicros) {
			throw new InvalidPolicyException(Field.LIMIT, "limit " + limit + " per " + period
					+ " is more than one per microsecond; use a longer period");
		}
		if (burst < 0) {
			throw new InvalidPolicyException(Field.BURST, "burst must be positive (or 0 for the default) but was " + burst);
		}
		if (burst > 0 && !algorithm.usesBurst()) {
			throw new InvalidPolicyException(Field.BURST, "burst has no meaning for " + algorithm.configName()
					+ "; remove it or use gcra, token-bucket or leaky-bucket");
		}
		if (spreadWindows && algorithm != Algorithm.FIXED_WINDOW) {
			throw new InvalidPolicyException(Field.SPREAD_WINDOWS, "spread-windows applies to fixed-window only");
		}
		if (algorithm == Algorithm.SLIDING_WINDOW_LOG && limit > MAX_LOG_LIMIT) {
			throw new InvalidPolicyException(Field.LIMIT, "sliding-window-log keeps one entry per unit, so its limit must"
					+ " be at most " + MAX_LOG_LIMIT + " but was " + limit
					+ "; use sliding-window-counter or gcra for large limits");
		}
		if (concurrency && limit > MAX_LOG_LIMIT) {
			throw new InvalidPolicyException(Field.LIMIT, "concurrency keeps one entry per unit in flight, so its limit"
					+ " must be at most " + MAX_LOG_LIMIT + " but was " + limit);
		}
		if (calendar != null) {
			if (algorithm != Algorithm.FIXED_WINDOW) {
				throw new InvalidPolicyException(Field.CALENDAR, "a calendar quota counts in fixed windows, so its"
						+ " algorithm must be fixed-window but was " + algorithm.configName());
			}
			if (spreadWindows) {
				throw new InvalidPolicyException(Field.SPREAD_WINDOWS, "calendar windows start at the calendar's"
						+ " boundaries; spread-windows does not apply");
			}
			if (!period.equals(calendar.nominalLength())) {
				throw new InvalidPolicyException(Field.PERIOD, "a calendar quota's window is its calendar " + calendar
						+ ", not a period of " + period + "; remove the period");
			}
		}
		long capacity = (burst > 0) ? burst : limit;
		long interval = ceilDiv(periodMicros, limit);
		if (capacity > MAX_CAPACITY_MICROS / interval) {
			throw new InvalidPolicyException(Field.BURST, "burst " + capacity + " is too large for " + limit + " per "
					+ period);
		}
		Objects.requireNonNull(warmUp, "warmUp");
		if (warmUp.isNegative() || warmUp.compareTo(MAX_PERIOD) > 0) {
			throw new InvalidPolicyException(Field.WARM_UP, "warm-up must be between 0 and 366d but was " + warmUp);
		}
		if (!warmUp.isZero() && algorithm != Algorithm.GCRA && algorithm != Algorithm.TOKEN_BUCKET) {
			throw new InvalidPolicyException(Field.WARM_UP, "warm-up applies to gcra and token-bucket only, not "
					+ algorithm.configName());
		}
		if (!warmUp.isZero() && toMicros(warmUp) < 1) {
			throw new InvalidPolicyException(Field.WARM_UP, "warm-up must be at least 1us (or 0 for none) but was "
					+ warmUp);
		}
		if (!(coldFactor >= 1 && coldFactor <= 100)) {
			throw new InvalidPolicyException(Field.COLD_FACTOR, "cold-factor must be between 1 and 100 but was "
					+ coldFactor);
		}
	}

	/**
	 * Creates a policy without warm-up.
	 * @param name the rule name
	 * @param algorithm the algorithm
	 * @param limit units per period
	 * @param period the period
	 * @param burst the bucket capacity, or 0 for the default
	 * @param spreadWindows whether fixed windows start at a per-key offset
	 * @param calendar the calendar of a calendar quota, or {@code null}
	 */
	public RateLimitPolicy(String name, Algorithm algorithm, long limit, Duration period, long burst,
			boolean spreadWindows, @Nullable CalendarPeriod calendar) {
		this(name, algorithm, limit, period, burst, spreadWindows, calendar, Duration.ZERO, DEFAULT_COLD_FACTOR);
	}

	/**
	 * Creates a policy without a calendar.
	 * @param name the rule name
	 * @param algorithm the algorithm
	 * @param limit units per period
	 * @param period the period
	 * @param burst the bucket capacity, or 0 for the default
	 * @param spreadWindows whether fixed windows start at a per-key offset
	 * @param warmUp the warm-up period, {@link Duration#ZERO} for none
	 * @param coldFactor how much slower a cold key admits
	 */
	public RateLimitPolicy(String name, Algorithm algorithm, long limit, Duration period, long burst,
			boolean spreadWindows, Duration warmUp, double coldFactor) {
		this(name, algorithm, limit, period, burst, spreadWindows, null, warmUp, coldFactor);
	}

	/**
	 * Creates a policy without a calendar.
	 * @param name the rule name
	 * @param algorithm the algorithm
	 * @param limit units per period
	 * @param period the period
	 * @param burst the bucket capacity, or 0 for the default
	 * @param spreadWindows whether fixed windows start at a per-key offset
	 */
	public RateLimitPolicy(String name, Algorithm algorithm, long limit, Duration period, long burst,
			boolean spreadWindows) {
		this(name, algorithm, limit, period, burst, spreadWindows, null, Duration.ZERO, DEFAULT_COLD_FACTOR);
	}

	/**
	 * Creates a calendar quota: {@code limit} units per day, week or month of a time zone, counted in fixed windows
	 * aligned to that calendar.
	 * @param name the rule name
	 * @param limit units per window
	 * @param calendar the windows
	 * @return the policy
	 */
	public static RateLimitPolicy calendar(String name, long limit, CalendarPeriod calendar) {
		return new RateLimitPolicy(name, Algorithm.FIXED_WINDOW, limit, calendar.nominalLength(), 0, false, calendar);
	}

	/** Returns a copy with another limit (and the same period or calendar). */
	public RateLimitPolicy withLimit(long limit) {
		return new RateLimitPolicy(this.name, this.algorithm, limit, this.period, this.burst, this.spreadWindows,
				this.calendar, this.warmUp, this.coldFactor);
	}

	/** Returns whether a name is a valid rule name: 1 to 32 characters of {@code [A-Za-z0-9._-]}. */
	public static boolean isValidName(String name) {
		return NAME.matcher(name).matches();
	}

	/**
	 * Checks a rule name.
	 * @throws InvalidPolicyException naming {@link Field#NAME} when it is not valid
	 */
	public static void checkName(String name) {
		if (!isValidName(name)) {
			throw new InvalidPolicyException(Field.NAME,
					"rule name '" + name + "' is not 1 to 32 characters of letters, digits, '.', '_' or '-'");
		}
	}

	/** Creates a policy of {@code limit} per {@code period} with the default burst. */
	public static RateLimitPolicy of(String name, Algorithm algorithm, long limit, Duration period) {
		return new RateLimitPolicy(name, algorithm, limit, period, 0, false);
	}

	/**
	 * Creates a concurrency policy: at most {@code limit} units in flight at once, each admitted request holding a
	 * {@link Lease} for at most {@code leaseTimeout} unless it renews it.
	 * @param name the rule name
	 * @param limit the most units in flight at once
	 * @param leaseTimeout how long a lease is held without a renewal, from 1 ms to 366 days
	 * @return the policy
	 */
	public static RateLimitPolicy concurrency(String name, long limit, Duration leaseTimeout) {
		return new RateLimitPolicy(name, Algorithm.CONCURRENCY, limit, leaseTimeout, 0, false);
	}

	/**
	 * Returns the lease timeout of a concurrency policy: how long an admitted request holds its slots without a
	 * renewal (its {@code period}).
	 * @throws IllegalStateException when this is not a concurrency policy
	 */
	public Duration leaseTimeout() {
		if (this.algorithm != Algorithm.CONCURRENCY) {
			throw new IllegalStateException(this.algorithm.configName() + " has no lease timeout");
		}
		return this.period;
	}

	/** Returns a copy with the given burst (bucket capacity). */
	public RateLimitPolicy withBurst(long burst) {
		return new RateLimitPolicy(this.name, this.algorithm, this.limit, this.period, burst, this.spreadWindows,
				this.calendar, this.warmUp, this.coldFactor);
	}

	/** Returns a copy whose fixed windows start at a per-key offset. */
	public RateLimitPolicy withSpreadWindows(boolean spreadWindows) {
		return new RateLimitPolicy(this.name, this.algorithm, this.limit, this.period, this.burst, spreadWindows,
				this.calendar, this.warmUp, this.coldFactor);
	}

	/**
	 * Returns a copy that warms up: a key unused for {@code warmUp} admits at {@code limit / coldFactor} (its burst
	 * too), rising to the full rate as it is used for {@code warmUp}.
	 * @param warmUp the warm-up period, {@link Duration#ZERO} for none
	 * @param coldFactor how much slower a cold key admits, from 1 to 100
	 * @return the copy
	 */
	public RateLimitPolicy withWarmUp(Duration warmUp, double coldFactor) {
		return new RateLimitPolicy(this.name, this.algorithm, this.limit, this.period, this.burst, this.spreadWindows,
				this.calendar, warmUp, coldFactor);
	}

	/** Returns whether keys of this policy warm up after idleness. */
	public boolean warmsUp() {
		return !this.warmUp.isZero() && this.coldFactor > 1;
	}

	/** Returns the warm-up period in microseconds. */
	public long warmUpMicros() {
		return toMicros(this.warmUp);
	}

	/** Returns the period in microseconds. */
	public long periodMicros() {
		return toMicros(this.period);
	}

	/** Returns the most units that can be admitted at once: the burst of the bucket algorithms, else the limit. */
	public long capacity() {
		return (this.burst > 0) ? this.burst : this.limit;
	}

	/** Returns the time one unit takes to replenish, {@code period / limit} rounded up, in microseconds. */
	public long intervalMicros() {
		return ceilDiv(periodMicros(), this.limit);
	}

	private static long toMicros(Duration duration) {
		return Math.addExact(Math.multiplyExact(duration.getSeconds(), 1_000_000L), duration.getNano() / 1_000);
	}

	private static long ceilDiv(long a, long b) {
		return -Math.floorDiv(-a, b);
	}

	/** The fields of a policy, as named by {@link InvalidPolicyException}. */
	public enum Field {

		/** The rule name. */
		NAME("name"),

		/** The limit. */
		LIMIT("limit"),

		/** The period. */
		PERIOD("period"),

		/** The burst (capacity). */
		BURST("burst"),

		/** Whether fixed windows are spread. */
		SPREAD_WINDOWS("spread-windows"),

		/** The lease timeout of a concurrency policy (its period). */
		LEASE_TIMEOUT("lease-timeout"),

		/** The calendar of a calendar quota. */
		CALENDAR("calendar"),

		/** The warm-up period. */
		WARM_UP("warm-up"),

		/** How much slower a cold key admits. */
		COLD_FACTOR("cold-factor");

		private final String propertyName;

		Field(String propertyName) {
			this.propertyName = propertyName;
		}

		/** Returns the name of the rule property that sets this field, e.g. {@code spread-windows}. */
		public String propertyName() {
			return this.propertyName;
		}

	}

	/** Thrown for an invalid policy: says which field is wrong, so callers never parse the message. */
	public static class InvalidPolicyException extends IllegalArgumentException {

		private final Field field;

		public InvalidPolicyException(Field field, String message) {
			super(message);
			this.field = field;
		}

		/** Returns the field that is wrong. */
		public Field field() {
			return this.field;
		}

	}

}
