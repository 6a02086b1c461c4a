package dev.ratelimit.web;

import java.io.IOException;

import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the response of a request that a rate limit denied. The default answers 429 with {@code Retry-After} and an
 * {@code application/problem+json} body. Replace it by declaring a bean of this type.
 */
@FunctionalInterface
public interface RateLimitRejectionHandler {

	/**
	 * Writes the rejection. Rate limit headers are already set.
	 * @param request the request
	 * @param response the response
	 * @param verdict the denying verdict
	 * @throws IOException when the response cannot be written
	 */
	void reject(HttpServletRequest request, HttpServletResponse response, Verdict verdict) throws IOException;

}
