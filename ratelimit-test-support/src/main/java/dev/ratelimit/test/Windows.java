package dev.ratelimit.test;

/**
 * Counts events in sliding windows, for tests that measure how calls were spread in time.
 */
public final class Windows {

	private Windows() {
	}

	/**
	 * Returns the most events in any window of {@code window} (a window holds the events less than {@code window}
	 * after its first).
	 * @param sorted the events' times, in ascending order
	 * @param window the window's length, in the times' unit
	 * @return the most events in one window
	 */
	public static int mostInAnyWindow(long[] sorted, long window) {
		int most = 0;
		int start = 0;
		for (int end = 0; end < sorted.length; end++) {
			while (sorted[end] - sorted[start] >= window) {
				start++;
			}
			most = Math.max(most, end - start + 1);
		}
		return most;
	}

}
