package dev.ratelimit.sync;

import dev.ratelimit.RateLimitPolicy;

/**
 * What one view admitted on one key in one window: a G-counter entry.
 *
 * @param policy the key's policy (of an algorithm that is {@link dev.ratelimit.algorithm.Syncable})
 * @param subject the key's subject
 * @param view the id of the view, unique among all views of all instances
 * @param window the window that counted the units ({@code 0} for an algorithm without windows)
 * @param total the units the view admitted in that window since it was created, cumulative: {@code 0} only reads
 * @param acknowledged the part of {@code total} the store acknowledged to the view: what the store applies when it no
 * longer holds the entry (it expired with the key), so that an expired entry never makes a view's units count twice
 */
public record SyncFlush(RateLimitPolicy policy, String subject, String view, long window, long total,
		long acknowledged) {

}
