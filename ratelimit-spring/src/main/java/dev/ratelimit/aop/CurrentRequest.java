package dev.ratelimit.aop;

import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * The web request that a {@link dev.ratelimit.RateLimited} call runs in, for {@link RateLimitedAspect}: what a named
 * rule's key, tier key and cost read, and where the call's verdict goes. One implementation per web stack
 * ({@link ServletCurrentRequest} for servlet requests); without one, every call is outside a request.
 */
@FunctionalInterface
public interface CurrentRequest {

	/**
	 * Returns the request the current call runs in.
	 * @return the request, or {@code null} outside one
	 */
	@Nullable RateLimitRequest get();

	/**
	 * Records the verdict of a call in the request it runs in, so that the request's headers and verdict describe
	 * the call's rules too. Does nothing by default.
	 * @param request the request, as {@link #get()} returned it
	 * @param verdict the verdict of the call's annotations
	 */
	default void record(RateLimitRequest request, Verdict verdict) {
	}

	/**
	 * Returns the current request of calls that never run in a web request.
	 * @return a current request that is always {@code null}
	 */
	static CurrentRequest none() {
		return () -> null;
	}

}
