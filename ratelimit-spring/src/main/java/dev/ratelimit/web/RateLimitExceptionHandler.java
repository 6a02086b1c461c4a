package dev.ratelimit.web;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.client.OutboundRateLimitExceededException;
import dev.ratelimit.lists.ListDeniedException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Turns a {@link RateLimitExceededException} thrown by a {@code @RateLimited} controller or service into the same
 * response as the filter's, through the {@link RateLimitRejectionHandler}: 429, or 503 when the denying rules say so
 * ({@link dev.ratelimit.Verdict#denialStatus()}); an {@link OutboundRateLimitExceededException} (an outbound call this
 * request needed was refused for its rate) becomes a 503 with {@code Retry-After}. It has the lowest precedence, so an application's own {@code @ExceptionHandler} for
 * the exception wins.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class RateLimitExceptionHandler {

	private final RateLimitRejectionHandler rejectionHandler;

	public RateLimitExceptionHandler(RateLimitRejectionHandler rejectionHandler) {
		this.rejectionHandler = rejectionHandler;
	}

	@ExceptionHandler(RateLimitExceededException.class)
	public void handle(RateLimitExceededException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		if (ex instanceof AdaptiveLimitExceededException adaptive) {
			this.rejectionHandler.rejectOverloaded(request, response, adaptive.getDenial());
			return;
		}
		if (ex instanceof ListDeniedException listed) {
			this.rejectionHandler.rejectListed(request, response, listed.getDenial());
			return;
		}
		if (ex instanceof OutboundRateLimitExceededException outbound) {
			// a dependency of this server is at its limit: the client did nothing to cause it
			ProblemDetailRejectionHandler.serviceUnavailable(request, response, List.of(outbound.getRule()),
					ProblemDetailRejectionHandler.retryAfterSeconds(outbound.getRetryAfter()),
					"A service this server depends on is at its rate limit.");
			return;
		}
		this.rejectionHandler.reject(request, response, ex.getVerdict());
	}

}
