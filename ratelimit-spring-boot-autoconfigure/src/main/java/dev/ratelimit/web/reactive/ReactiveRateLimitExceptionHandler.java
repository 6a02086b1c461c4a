package dev.ratelimit.web.reactive;

import java.nio.charset.StandardCharsets;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitProblem;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.server.ServerWebExchange;

/**
 * Turns a {@link RateLimitExceededException} signalled by a reactive {@code @RateLimited} controller or service (a
 * {@code Mono} or {@code Flux} whose subscription a limit denied) into the same response as on the servlet stack: the
 * rate limit headers, {@code Retry-After}, and the problem+json body with 429, or 503 when the denying rules say so;
 * 503 for an adaptive concurrency limit. It has the lowest precedence, so an application's own
 * {@code @ExceptionHandler} for the exception wins. The WebFlux counterpart of
 * {@link dev.ratelimit.web.RateLimitExceptionHandler}.
 */
@ControllerAdvice
@Order(Ordered.LOWEST_PRECEDENCE)
public class ReactiveRateLimitExceptionHandler {

	private final @Nullable RateLimitHeaders headers;

	/**
	 * @param headers computes the rate limit headers of the denying verdict, or {@code null} to send none
	 */
	public ReactiveRateLimitExceptionHandler(@Nullable RateLimitHeaders headers) {
		this.headers = headers;
	}

	@ExceptionHandler(RateLimitExceededException.class)
	public Mono<Void> handle(RateLimitExceededException ex, ServerWebExchange exchange) {
		String path = exchange.getRequest().getPath().value();
		if (ex instanceof AdaptiveLimitExceededException adaptive) {
			return write(exchange, RateLimitProblem.overloaded(adaptive.getDenial(), path));
		}
		if (this.headers != null) {
			exchange.getResponse().getHeaders().addAll(this.headers.of(ex.getVerdict()));
		}
		return write(exchange, RateLimitProblem.of(ex.getVerdict(), path));
	}

	private static Mono<Void> write(ServerWebExchange exchange, RateLimitProblem problem) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatusCode.valueOf(problem.status()));
		response.getHeaders().addAll(problem.headers());
		DataBuffer body = response.bufferFactory().wrap(problem.json().getBytes(StandardCharsets.UTF_8));
		return response.writeWith(Mono.just(body));
	}

}
