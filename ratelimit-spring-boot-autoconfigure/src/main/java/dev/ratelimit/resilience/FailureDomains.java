package dev.ratelimit.resilience;

import java.util.List;

import dev.ratelimit.RateLimitCheck;

/**
 * The parts of a shared store that fail on their own, such as the masters of a Redis Cluster. The
 * {@link ResilientRateLimiter} keeps a circuit breaker (and its background probe) per part, so that a failed part sends
 * only the requests that need it to the fallback, while the others keep being decided by the store. A store that
 * implements this interface is split so by itself; a store that does not is one part.
 */
public interface FailureDomains {

	/**
	 * Returns the part that decides these checks: for checks spread over several parts, a name for that set; {@code ""}
	 * for the store as a whole (when the part is not known).
	 * @param checks a request's checks
	 * @return the part's name, a bounded set of names (e.g. {@code host:port} of a master)
	 */
	String domainOf(List<RateLimitCheck> checks);

	/**
	 * Returns whether a part still decides checks: a master replaced by its replica does not, and its circuit breaker,
	 * which no request tries any more, no longer counts.
	 * @param domain a name that {@link #domainOf} returned
	 * @return whether it is still in use
	 */
	boolean isCurrent(String domain);

}
