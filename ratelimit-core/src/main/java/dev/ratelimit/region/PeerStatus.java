package dev.ratelimit.region;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How replication to one peer region stands.
 *
 * @param region the peer region's name
 * @param reachable whether the last replication to it succeeded (or none was needed yet)
 * @param pending the entries waiting to be shipped to it
 * @param lag the age of the oldest entry it has not acknowledged (zero when none waits)
 * @param replicated the entries it acknowledged so far
 * @param failures the replication calls to it that failed so far
 * @param dropped the entries not kept for it because too many were pending
 * @param lastFailure why the last failed call failed, while it is unreachable
 */
public record PeerStatus(String region, boolean reachable, long pending, Duration lag, long replicated, long failures,
		long dropped, @Nullable String lastFailure) {
}
