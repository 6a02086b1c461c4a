package dev.ratelimit.web.reactive;

import java.nio.charset.StandardCharsets;

import dev.ratelimit.Verdict;
import dev.ratelimit.web.RateLimitProblem;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * Answers a denied WebFlux request with the status, {@code Retry-After} and {@code application/problem+json} body
 * that {@link RateLimitProblem} computes, byte for byte what the servlet stack sends.
 */
public class ProblemDetailReactiveRejectionHandler implements ReactiveRateLimitRejectionHandler {

	@Override
	public Mono<Void> reject(ServerWebExchange exchange, Verdict verdict) {
		return write(exchange, RateLimitProblem.of(verdict, exchange.getRequest().getPath().value()));
	}

	/**
	 * Writes an answer: its status, its headers and its JSON body.
	 * @param exchange the exchange
	 * @param answer the answer
	 * @return completes when the response is written
	 */
	public static Mono<Void> write(ServerWebExchange exchange, RateLimitProblem answer) {
		ServerHttpResponse response = exchange.getResponse();
		response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
		response.getHeaders().putAll(answer.headers());
		byte[] body = answer.json().getBytes(StandardCharsets.UTF_8);
		response.getHeaders().setContentLength(body.length);
		DataBuffer buffer = response.bufferFactory().wrap(body);
		return response.writeWith(Mono.just(buffer));
	}

}
