package dev.ratelimit.sync;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * Told of the flushes of a {@link LocalSyncStore}, for metrics.
 */
public interface SyncListener {

	/** A listener that does nothing. */
	SyncListener NONE = new SyncListener() {
	};

	/**
	 * Called when a flush call completed.
	 * @param entries the G-counter entries it carried
	 * @param took how long the call took
	 * @param failure why it failed, or {@code null} when the store applied it
	 */
	default void onFlush(int entries, Duration took, @Nullable Throwable failure) {
	}

}
