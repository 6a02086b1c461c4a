package dev.ratelimit.algorithm;

import org.jspecify.annotations.Nullable;

/**
 * An algorithm whose state can take units admitted elsewhere as a delta: the basis of local-first decisions
 * ({@code sync: local}), where an instance decides from its own view of a key and sends what it admitted to the shared
 * store later. {@link #absorb} is the one operation the store applies for such a flush, and the one the instance
 * applies to the store's state for what it admitted after the flush left; Lua implements it for Redis ({@code sync.lua})
 * and the differential test holds the two together.
 *
 * @param <S> the state
 */
public interface Syncable<S> extends LimitAlgorithm<S> {

	/**
	 * Returns the state after {@code units} that were admitted without this state's knowledge: consumed without a limit
	 * check (the admissions happened; a state may so go beyond its limit, which later decisions then pay back).
	 * @param state the state, or {@code null} for none
	 * @param now the current time in microseconds
	 * @param units the units admitted, non-negative
	 * @param window the window that counted them ({@link #windowOf} at their admission), for algorithms with windows;
	 * units of a window that no longer counts are dropped
	 * @return the new state, or {@code null} for none
	 */
	@Nullable S absorb(@Nullable S state, long now, long units, long window);

	/**
	 * Returns the window that counts a unit admitted at {@code now}: its start in microseconds, or {@code 0} for an
	 * algorithm without windows.
	 * @param now the time in microseconds
	 * @return the window
	 */
	default long windowOf(long now) {
		return 0;
	}

	/**
	 * Charges as {@link #absorb} takes units admitted elsewhere: into the window of the admission, without a limit
	 * check.
	 */
	@Override
	default @Nullable S charge(@Nullable S state, long nowMicros, long admittedAtMicros, long units) {
		return absorb(state, nowMicros, units, windowOf(admittedAtMicros));
	}

}
