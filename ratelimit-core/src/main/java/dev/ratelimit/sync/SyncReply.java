package dev.ratelimit.sync;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The shared state after a flush.
 *
 * @param nowMicros the store's time when it applied the flush, in microseconds
 * @param states the state of each flush's key (the algorithm's state record), {@code null} for none
 */
public record SyncReply(long nowMicros, List<@Nullable Object> states) {

}
