package dev.ratelimit.web;

import java.io.IOException;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Turns a {@link RateLimitExceededException} thrown by a {@code @RateLimited} controller or service into the same
 * response as the filter's, through the {@link RateLimitRejectionHandler}: 429, or 503 when the denying rules say so
 * ({@link dev.ratelimit.Verdict#denialStatus()}). It has the lowest precedence, so an application's own {@code @ExceptionHandler} for
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
		this.rejectionHandler.reject(request, response, ex.getVerdict());
	}

}
