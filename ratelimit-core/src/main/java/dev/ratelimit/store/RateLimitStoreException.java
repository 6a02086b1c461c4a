package dev.ratelimit.store;

/**
 * Thrown when a {@link RateLimitStore} cannot answer: unreachable, too slow, or a failed script.
 */
public class RateLimitStoreException extends RuntimeException {

	public RateLimitStoreException(String message, Throwable cause) {
		super(message, cause);
	}

}
