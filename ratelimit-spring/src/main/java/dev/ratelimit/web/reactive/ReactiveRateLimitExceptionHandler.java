package dev.ratelimit.web.reactive;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.lists.ListDeniedException;
import dev.ratelimit.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.server.ServerWebExchange;

/**
 * Turns a {@link RateLimitExceededException} signalled by a reactive {@code @RateLimited} controller or service (a
 * {@code Mono} or {@code Flux} whose subscription a limit denied) into the same response as the WebFlux filter's,
 * through the {@link ReactiveRateLimitRejectionHandler}: the rate limit headers of the exchange's verdict, then 429,
 * or 503 when the denying rules say so, with {@code Retry-After} and problem+json; 503 for an adaptive concurrency
 * limit. It has the lowest precedence, so an application's own {@code @ExceptionHandler} for the exception wins. The
 * WebFlux counterpart of {@link dev.ratelimit.web.RateLimitExceptionHandler}.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveRateLimitExceptionHandler {

	private final ReactiveRateLimitRejectionHandler rejectionHandler;

	private final @Nullable RateLimitHeaders headers;

	/**
	 * @param rejectionHandler writes the rejection
	 * @param headers computes the rate limit headers of the denying verdict, or {@code null} to send none
	 */
	public ReactiveRateLimitExceptionHandler(ReactiveRateLimitRejectionHandler rejectionHandler,
			@Nullable RateLimitHeaders headers) {
		this.rejectionHandler = rejectionHandler;
		this.headers = headers;
	}

	@ExceptionHandler(RateLimitExceededException.class)
	public Mono<Void> handle(RateLimitExceededException ex, ServerWebExchange exchange) {
		if (ex instanceof AdaptiveLimitExceededException adaptive) {
			return this.rejectionHandler.rejectOverloaded(exchange, adaptive.getDenial());
		}
		if (ex instanceof ListDeniedException listed) {
			return this.rejectionHandler.rejectListed(exchange, listed.getDenial());
		}
		if (this.headers != null) {
			// the exchange's verdict when the call recorded it there (merged with the filter's), else the call's own
			Verdict verdict = (exchange.getAttribute(RateLimitWebFilter.VERDICT_ATTRIBUTE) instanceof Verdict merged)
					? merged : ex.getVerdict();
			exchange.getResponse().getHeaders().putAll(this.headers.of(verdict));
		}
		return this.rejectionHandler.reject(exchange, ex.getVerdict());
	}

}
