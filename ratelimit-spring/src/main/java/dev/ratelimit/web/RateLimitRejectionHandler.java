package dev.ratelimit.web;

import java.io.IOException;

import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import dev.ratelimit.lists.ListDenial;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the response of a request that a rate limit denied. The default answers 429 with {@code Retry-After} and an
 * {@code application/problem+json} body, and 503 for a request that an adaptive concurrency limit denied. The status
 * a denial asks for is {@link Verdict#denialStatus()} (each rule's {@code status}: 503 by default for a
 * {@code global} concurrency cap) and {@link AdaptiveDenial#status()}; a replacement should answer with it. Replace it
 * by declaring a bean of this type.
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

	/**
	 * Writes the rejection of a request that an adaptive concurrency limit denied: this instance is at its limit, so
	 * the request was denied before any rate limit was checked. By default, 503 Service Unavailable with
	 * {@code Retry-After} and a problem body ({@link ProblemDetailRejectionHandler#rejectOverloaded}).
	 * @param request the request
	 * @param response the response
	 * @param denial the rule that denied it
	 * @throws IOException when the response cannot be written
	 */
	default void rejectOverloaded(HttpServletRequest request, HttpServletResponse response, AdaptiveDenial denial)
			throws IOException {
		ProblemDetailRejectionHandler.overloaded(request, response, denial);
	}

	/**
	 * Writes the rejection of a request that the deny list ({@code ratelimit.lists.deny}) refused before any rule was
	 * checked. By default, 403 Forbidden (or {@code ratelimit.lists.deny-status}) with a problem body
	 * ({@link RateLimitProblem#listed}) and no {@code Retry-After}.
	 * @param request the request
	 * @param response the response
	 * @param denial the entry that refused it
	 * @throws IOException when the response cannot be written
	 */
	default void rejectListed(HttpServletRequest request, HttpServletResponse response, ListDenial denial)
			throws IOException {
		ProblemDetailRejectionHandler.write(response, RateLimitProblem.listed(denial, request.getRequestURI()).problem());
	}

}
