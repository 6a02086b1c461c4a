package dev.ratelimit.algorithm;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashSet;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * Distinct values: each subject may present at most {@code limit} distinct values per window of {@code period}
 * (windows start at multiples of the period, as the fixed window's do); a value already counted in the window is
 * always admitted and changes nothing. A state from an earlier window counts as empty; a later window that the clock
 * stepped back out of stays the current window until it ends, so a step back never gives values back.
 * <p>
 * Values are {@link #token tokens}: hashes of what the client sent, never the raw input. Up to
 * {@value #EXACT_MAX_LIMIT} the values are kept exactly (a set of tokens); above it, in a {@link HyperLogLog} (about
 * 16 KiB here, at most 14 KiB in Redis; standard error 0.81%): a value counts as seen when adding it changes no
 * register, and a new value is admitted while the estimate with it stays within the limit. A sketch has no membership
 * test: a share of new values changes no register either (about 4% at 1,000 values counted, 32% at 10,000) and is
 * admitted as seen.
 * <ul>
 * <li>remaining = {@code limit - count} (count: the values of the window, or the estimate)</li>
 * <li>resetAfter = time until the window ends, 0 when no value is counted</li>
 * <li>retryAfter when denied = time until the window ends</li>
 * </ul>
 * A cost above 0 presents the value once, whatever its size; a cost of 0 inspects.
 *
 * @param periodMicros the window length
 * @param limit distinct values per window
 * @param value the token of the value the request presents ({@code ""} to inspect only)
 */
public record Distinct(long periodMicros, long limit, String value) implements LimitAlgorithm<Distinct.State> {

	/**
	 * The largest limit whose values are counted exactly; larger limits use a HyperLogLog. Up to 512 integers, Redis
	 * keeps a set as an intset (8 bytes per token, 5 KiB at 512); beyond, a set costs about 64 bytes per token (64 KiB
	 * at 1,000), far more than a HyperLogLog (2 KiB at 1,000 values, at most 14 KiB).
	 */
	public static final long EXACT_MAX_LIMIT = 512;

	/**
	 * The values of one window.
	 * @param windowStart start of the window, in microseconds
	 * @param values the tokens counted, when exact (else empty)
	 * @param sketch the sketch of the values counted, when approximate (else {@code null})
	 */
	public record State(long windowStart, Set<String> values, @Nullable HyperLogLog sketch) {

		public State {
			values = Set.copyOf(values);
		}

		/** Returns the number of values counted: exact, or the estimate. */
		public long count() {
			return (this.sketch != null) ? this.sketch.count() : this.values.size();
		}

	}

	/** Returns whether a policy of this limit counts exactly (else with a HyperLogLog). */
	public static boolean exact(long limit) {
		return limit <= EXACT_MAX_LIMIT;
	}

	/**
	 * Returns the token that stands for a value in every store: the first 63 bits of the SHA-256 of its UTF-8 bytes,
	 * in decimal (so Redis keeps small sets of them as compact integer sets). Two values share a token with a
	 * probability of about n&sup2; / 2<sup>64</sup>.
	 * @param value the value as resolved from the request
	 * @return its token
	 */
	public static String token(String value) {
		byte[] digest;
		try {
			digest = MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
		long bits = 0;
		for (int i = 0; i < 8; i++) {
			bits = (bits << 8) | (digest[i] & 0xffL);
		}
		return Long.toString(bits & Long.MAX_VALUE);
	}

	/** Returns whether a string is a token: 1 to 19 decimal digits. */
	public static boolean isToken(String value) {
		if (value.isEmpty() || value.length() > 19) {
			return false;
		}
		for (int i = 0; i < value.length(); i++) {
			if (value.charAt(i) < '0' || value.charAt(i) > '9') {
				return false;
			}
		}
		return true;
	}

	@Override
	public Outcome<State> apply(@Nullable State state, long now, long cost) {
		long windowStart = Math.floorDiv(now, this.periodMicros) * this.periodMicros;
		// the current window, or a later one that the clock stepped back out of, counts until it ends; a state of the
		// other form (kept under a limit on the other side of EXACT_MAX_LIMIT) does not
		boolean current = state != null && state.windowStart() >= windowStart
				&& Math.floorMod(state.windowStart(), this.periodMicros) == 0
				&& (state.sketch() == null) == exact(this.limit);
		if (current) {
			windowStart = state.windowStart();
		}
		long count = current ? state.count() : 0;
		long untilEnd = windowStart + this.periodMicros - now;
		long reset = (count > 0) ? untilEnd : 0;
		if (cost == 0) {
			// values come back only when the window ends: the next one is as far as the full reset
			return Outcome.allowed(this.limit - count, reset, reset, state, current ? untilEnd : 0);
		}
		if (exact(this.limit)) {
			if (current && state.values().contains(this.value)) {
				return Outcome.allowed(this.limit - count, reset, reset, state, untilEnd);
			}
			if (count + 1 > this.limit) {
				return Outcome.denied(this.limit - count, reset, untilEnd, untilEnd, state);
			}
			Set<String> values = new HashSet<>(current ? state.values() : Set.of());
			values.add(this.value);
			return Outcome.allowed(this.limit - count - 1, untilEnd, untilEnd, new State(windowStart, values, null),
					untilEnd);
		}
		HyperLogLog sketch = (current && state.sketch() != null) ? state.sketch() : HyperLogLog.empty();
		HyperLogLog added = sketch.add(this.value);
		if (added == sketch) {
			return Outcome.allowed(this.limit - count, reset, reset, state, untilEnd);
		}
		long after = added.count();
		if (after > this.limit) {
			return Outcome.denied(this.limit - count, reset, untilEnd, untilEnd, state);
		}
		return Outcome.allowed(this.limit - after, untilEnd, untilEnd, new State(windowStart, Set.of(), added),
				untilEnd);
	}

}
