package dev.ratelimit.web;

import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes rate limit headers for a verdict; called for every limited request, allowed or denied. Replace the default
 * by declaring a bean of this type.
 */
@FunctionalInterface
public interface RateLimitHeadersWriter {

	/**
	 * Writes headers.
	 * @param response the response, not yet committed
	 * @param verdict the verdict of every rule that applied to the request
	 */
	void write(HttpServletResponse response, Verdict verdict);

}
