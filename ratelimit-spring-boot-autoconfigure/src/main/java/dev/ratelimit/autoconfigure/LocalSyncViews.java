package dev.ratelimit.autoconfigure;

import dev.ratelimit.sync.LocalSyncStore;

import org.springframework.beans.factory.DisposableBean;

/**
 * The local views of the rules in {@code sync: local} mode, as the auto-configured limiter uses them: a bean of its own
 * (rather than a second {@code RateLimitStore} bean beside the shared store) that flushes every view when the
 * application stops.
 */
public final class LocalSyncViews implements DisposableBean {

	private final LocalSyncStore store;

	LocalSyncViews(LocalSyncStore store) {
		this.store = store;
	}

	/** Returns the store that decides local rules from the views and the others in the shared store. */
	public LocalSyncStore store() {
		return this.store;
	}

	/** Flushes every view, then stops the flusher. */
	@Override
	public void destroy() {
		this.store.close();
	}

}
