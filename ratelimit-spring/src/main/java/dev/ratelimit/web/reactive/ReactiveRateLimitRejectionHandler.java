package dev.ratelimit.web.reactive;

import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.web.RateLimitProblem;
import reactor.core.publisher.Mono;

import org.springframework.web.server.ServerWebExchange;

/**
 * Writes the response of a WebFlux request that a rate limit denied: the reactive form of the servlet stack's
 * {@code RateLimitRejectionHandler}. The default ({@link ProblemDetailReactiveRejectionHandler}) answers exactly as
 * the servlet stack does: 429 (or 503, {@link Verdict#denialStatus()}) with {@code Retry-After} and an
 * {@code application/problem+json} body ({@link RateLimitProblem}). Replace it by declaring a bean of this type.
 */
@FunctionalInterface
public interface ReactiveRateLimitRejectionHandler {

	/**
	 * Writes the rejection. Rate limit headers are already set.
	 * @param exchange the exchange
	 * @param verdict the denying verdict
	 * @return completes when the response is written
	 */
	Mono<Void> reject(ServerWebExchange exchange, Verdict verdict);

	/**
	 * Writes the rejection of a request that an adaptive concurrency limit denied before any rate limit was checked.
	 * By default, 503 Service Unavailable (or the rule's {@code status}) with {@code Retry-After} and a problem body.
	 * @param exchange the exchange
	 * @param denial the rule that denied it
	 * @return completes when the response is written
	 */
	default Mono<Void> rejectOverloaded(ServerWebExchange exchange, AdaptiveDenial denial) {
		return ProblemDetailReactiveRejectionHandler.write(exchange,
				RateLimitProblem.overloaded(denial, exchange.getRequest().getPath().value()));
	}

	/**
	 * Writes the rejection of a request that the deny list ({@code ratelimit.lists.deny}) refused before any rule was
	 * checked. By default, 403 Forbidden (or {@code ratelimit.lists.deny-status}) with a problem body.
	 * @param exchange the exchange
	 * @param denial the entry that refused it
	 * @return completes when the response is written
	 */
	default Mono<Void> rejectListed(ServerWebExchange exchange, ListDenial denial) {
		return ProblemDetailReactiveRejectionHandler.write(exchange,
				RateLimitProblem.listed(denial, exchange.getRequest().getPath().value()));
	}

}
