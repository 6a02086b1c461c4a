package dev.ratelimit.web.reactive;

import java.util.concurrent.CompletableFuture;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.Verdict;
import dev.ratelimit.aop.ReactiveCurrentRequest;
import dev.ratelimit.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.server.ServerWebExchange;

/**
 * The WebFlux exchange that a reactive {@code @RateLimited} call serves, found in the Reactor context of its
 * subscription, where Spring's {@link ServerWebExchangeContextFilter} puts it. A call's verdict is merged with the
 * filter's ({@link RateLimitWebFilter#VERDICT_ATTRIBUTE}) and, while the response is not committed, its headers
 * replace the filter's.
 */
public final class ExchangeCurrentRequest implements ReactiveCurrentRequest {

	private final ClientIp clientIp;

	private final ServerRouteLookup routes;

	private final @Nullable RateLimitHeaders headers;

	/**
	 * @param clientIp masks the remote address into the client's network
	 * @param routes finds the route template of the request's handler
	 * @param headers computes the headers of the merged verdict, or {@code null} to write none
	 */
	public ExchangeCurrentRequest(ClientIp clientIp, ServerRouteLookup routes, @Nullable RateLimitHeaders headers) {
		this.clientIp = clientIp;
		this.routes = routes;
		this.headers = headers;
	}

	@Override
	public @Nullable RateLimitRequest get(ContextView context) {
		return ServerWebExchangeContextFilter.getExchange(context)
			.map((exchange) -> new ServerRateLimitRequest(exchange, this.clientIp, this.routes))
			.orElse(null);
	}

	@Override
	public Mono<RateLimitRequest> resolve(RateLimitRequest request) {
		if (request instanceof ServerRateLimitRequest server && server.needsResolution()) {
			return server.resolve().cast(RateLimitRequest.class);
		}
		return Mono.just(request);
	}

	/** Goes on on the event loop of the request's connection (see {@link ConnectionEventLoop}). */
	@Override
	public CompletableFuture<Verdict> continueOn(RateLimitRequest request, CompletableFuture<Verdict> verdict) {
		ServerWebExchange exchange = request.getNativeRequest(ServerWebExchange.class);
		return (exchange != null) ? ConnectionEventLoop.continueOn(exchange, verdict) : verdict;
	}

	@Override
	public void record(RateLimitRequest request, Verdict verdict) {
		ServerWebExchange exchange = request.getNativeRequest(ServerWebExchange.class);
		if (exchange == null) {
			return;
		}
		Verdict merged = RateLimitWebFilter.recordVerdict(exchange, verdict);
		ServerHttpResponse response = exchange.getResponse();
		if (this.headers != null && !response.isCommitted()) {
			response.getHeaders().putAll(this.headers.of(merged));
		}
	}

}
