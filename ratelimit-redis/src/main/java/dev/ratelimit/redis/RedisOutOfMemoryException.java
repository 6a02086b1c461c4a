package dev.ratelimit.redis;

import dev.ratelimit.store.RateLimitStoreException;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when Redis refuses a rate limit call because it is at {@code maxmemory} under
 * {@code maxmemory-policy noeviction}. Nothing of the call was written: every script's first write is a command that
 * Redis checks against its memory limit, so a full Redis refuses the call as a whole, for every algorithm, and the
 * rules follow their {@code on-store-failure} mode.
 */
public class RedisOutOfMemoryException extends RateLimitStoreException {

	/** What Redis answers a write it refuses for memory (Redis 7 starts the reply with it, 6.2 quotes it). */
	private static final String OOM_REPLY = "OOM command not allowed";

	/**
	 * @param cause Redis's reply, as Lettuce reported it
	 */
	public RedisOutOfMemoryException(Throwable cause) {
		super("Redis is out of memory (used_memory above maxmemory, maxmemory-policy noeviction): it refuses the"
				+ " limiter's writes, nothing was written", cause);
	}

	/**
	 * Tells whether a failure, or one of its causes, is Redis refusing a write for memory ({@code OOM command not
	 * allowed when used memory > 'maxmemory'}).
	 * @param failure the failure
	 * @return whether Redis was out of memory
	 */
	public static boolean isOutOfMemory(@Nullable Throwable failure) {
		for (Throwable each = failure; each != null; each = (each.getCause() != each) ? each.getCause() : null) {
			if (each instanceof RedisOutOfMemoryException
					|| (each.getMessage() != null && each.getMessage().contains(OOM_REPLY))) {
				return true;
			}
		}
		return false;
	}

}
