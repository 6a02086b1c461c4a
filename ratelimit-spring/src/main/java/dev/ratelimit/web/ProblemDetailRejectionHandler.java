package dev.ratelimit.web;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * Answers a denied request on a servlet response with the {@code application/problem+json} body and the
 * {@code Retry-After} header that {@link RateLimitProblem} computes: 429 {@code quota-exceeded} when the client used
 * its quota, 503 {@code temporary-reduced-capacity} when the server cannot take the request.
 */
public class ProblemDetailRejectionHandler implements RateLimitRejectionHandler {

	/** The problem type of a request that exceeded its quota (429). */
	public static final URI QUOTA_EXCEEDED_TYPE = RateLimitProblem.QUOTA_EXCEEDED_TYPE;

	/** The problem type of a request that the server cannot take right now (503). */
	public static final URI TEMPORARY_REDUCED_CAPACITY_TYPE = RateLimitProblem.TEMPORARY_REDUCED_CAPACITY_TYPE;

	/** The extension member that names the rules (the draft's "policies") that denied the request. */
	public static final String VIOLATED_POLICIES = RateLimitProblem.VIOLATED_POLICIES;

	@Override
	public void reject(HttpServletRequest request, HttpServletResponse response, Verdict verdict) throws IOException {
		write(response, RateLimitProblem.of(verdict, request.getRequestURI()));
	}

	@Override
	public void rejectOverloaded(HttpServletRequest request, HttpServletResponse response, AdaptiveDenial denial)
			throws IOException {
		overloaded(request, response, denial);
	}

	/**
	 * Writes the 503 of a request that an adaptive concurrency limit denied.
	 * @param request the request
	 * @param response the response
	 * @param denial the rule that denied it
	 * @throws IOException when the response cannot be written
	 */
	static void overloaded(HttpServletRequest request, HttpServletResponse response, AdaptiveDenial denial)
			throws IOException {
		write(response, RateLimitProblem.overloaded(denial, request.getRequestURI()));
	}

	/**
	 * Writes a 503 {@link #TEMPORARY_REDUCED_CAPACITY_TYPE temporary-reduced-capacity} problem with
	 * {@code Retry-After}.
	 * @param request the request
	 * @param response the response
	 * @param rules the rules that denied the request, for {@code violated-policies}
	 * @param seconds the wait, in seconds
	 * @param reason the first sentence of the detail
	 * @throws IOException when the response cannot be written
	 */
	public static void serviceUnavailable(HttpServletRequest request, HttpServletResponse response,
			List<String> rules, long seconds, String reason) throws IOException {
		write(response, RateLimitProblem.serviceUnavailable(request.getRequestURI(), rules, seconds, reason));
	}

	/**
	 * Returns a wait in whole seconds for {@code Retry-After}: rounded up, at least 1.
	 * @param wait the wait
	 * @return the seconds
	 */
	public static long retryAfterSeconds(Duration wait) {
		return RateLimitProblem.retryAfterSeconds(wait);
	}

	/**
	 * Writes a problem as {@code application/problem+json}.
	 * @param response the response
	 * @param problem the problem
	 * @throws IOException when the response cannot be written
	 */
	public static void write(HttpServletResponse response, ProblemDetail problem) throws IOException {
		response.setStatus(problem.getStatus());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getWriter().write(RateLimitProblem.toJson(problem));
	}

	private static void write(HttpServletResponse response, RateLimitProblem answer) throws IOException {
		Long retryAfter = answer.retryAfter();
		if (retryAfter != null) {
			response.setHeader("Retry-After", Long.toString(retryAfter));
		}
		write(response, answer.problem());
	}

}
