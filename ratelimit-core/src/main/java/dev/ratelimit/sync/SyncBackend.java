package dev.ratelimit.sync;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A store that local views flush to: it applies each view's admissions exactly once, however often a flush is sent,
 * and answers the shared state after them.
 * <p>
 * Idempotence is a G-counter entry per view and window: a flush carries the view's cumulative total of units
 * admitted in the window, the store keeps the largest total it applied per entry, and applies only the difference. A
 * flush that is retried, or whose reply was lost, or that overtakes an older one, never counts a unit twice. An entry
 * the store no longer holds (it expired with its key) is applied from what the view says was acknowledged.
 */
public interface SyncBackend {

	/**
	 * Applies the flushes in one call and answers the state of each flush's key after it.
	 * @param flushes the flushes, at most one per (key, view, window)
	 * @return the states, in the order of the flushes, with the store's time
	 */
	CompletableFuture<SyncReply> sync(List<SyncFlush> flushes);

}
