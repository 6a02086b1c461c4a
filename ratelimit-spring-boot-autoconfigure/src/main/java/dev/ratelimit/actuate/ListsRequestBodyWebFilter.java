package dev.ratelimit.actuate;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * The WebFlux form of {@link ListsRequestBodyAdvice} (Spring MVC): lets {@code POST .../ratelimits/lists/{list}} take
 * {@code "rules": ["api", "login"]} by joining an array of strings with commas before Actuator reads the body as a
 * map of strings. Every other request passes untouched.
 */
public class ListsRequestBodyWebFilter implements WebFilter {

	/** The most a lists write's body may hold; a larger one is passed on as it is (Actuator answers it). */
	private static final int MAX_BODY = 64 * 1024;

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		ServerHttpRequest request = exchange.getRequest();
		if (request.getMethod() != HttpMethod.POST || !ListsRequestBodies.isListsPath(request.getPath().value())
				|| request.getHeaders().getContentLength() > MAX_BODY) {
			return chain.filter(exchange);
		}
		return DataBufferUtils.join(request.getBody(), MAX_BODY).map(ListsRequestBodyWebFilter::bytes)
			.defaultIfEmpty(new byte[0])
			.flatMap((body) -> {
				byte[] rewritten = (body.length > 0) ? ListsRequestBodies.joinArrays(body) : body;
				return chain.filter(exchange.mutate().request(decorate(exchange, request, rewritten)).build());
			});
	}

	private static byte[] bytes(DataBuffer buffer) {
		try {
			byte[] bytes = new byte[buffer.readableByteCount()];
			buffer.read(bytes);
			return bytes;
		}
		finally {
			DataBufferUtils.release(buffer);
		}
	}

	private static ServerHttpRequest decorate(ServerWebExchange exchange, ServerHttpRequest request, byte[] body) {
		return new ServerHttpRequestDecorator(request) {

			@Override
			public Flux<DataBuffer> getBody() {
				return Flux.defer(() -> Flux.just(exchange.getResponse().bufferFactory().wrap(body)));
			}

			@Override
			public HttpHeaders getHeaders() {
				HttpHeaders headers = new HttpHeaders();
				headers.putAll(super.getHeaders());
				headers.setContentLength(body.length);
				return headers;
			}

		};
	}

}
