package dev.ratelimit.web.reactive;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Finds the route template of the handler that will serve a WebFlux request, before it runs: the pattern that WebFlux
 * matches and that Micrometer tags as {@code uri}, e.g. {@code /api/reports/{user}} for {@code /api/reports/alice}.
 * Key {@code endpoint} is the method and this route.
 */
@FunctionalInterface
public interface ServerRouteLookup {

	/**
	 * Returns the route of a request.
	 * @param exchange the exchange
	 * @return the route; empty when no handler maps the request
	 */
	Mono<String> route(ServerWebExchange exchange);

	/**
	 * Returns a lookup that knows no routes: every request is unmapped.
	 * @return the lookup
	 */
	static ServerRouteLookup none() {
		return (exchange) -> Mono.empty();
	}

	/**
	 * Returns the lookup that asks the {@link HandlerMapping}s in the {@code DispatcherHandler}'s order for the
	 * handler, and reads the pattern the first one that maps the request matched. The mappings see a view of the
	 * exchange whose attributes and response headers are their own (what they set while matching, such as CORS
	 * headers, is not left on the exchange). A request that a mapping refuses (405, 406, 415) has no route.
	 * @param mappings the handler mappings, e.g. {@code DispatcherHandler::getHandlerMappings}; asked at every lookup
	 * @return the lookup
	 */
	static ServerRouteLookup handlerMappings(Supplier<List<HandlerMapping>> mappings) {
		return (exchange) -> {
			Probe probe = new Probe(exchange);
			List<HandlerMapping> all = mappings.get();
			return Flux.fromIterable((all != null) ? all : List.of())
				.concatMap((mapping) -> mapping.getHandler(probe))
				.next()
				.flatMap((handler) -> Mono.justOrEmpty(pattern(probe.getAttributes()
					.get(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE))))
				// the mapping matched the path but refuses the request: no handler will serve it
				.onErrorResume((ex) -> Mono.empty());
		};
	}

	private static String pattern(Object pattern) {
		if (pattern instanceof PathPattern pathPattern) {
			return pathPattern.getPatternString();
		}
		return (pattern != null) ? pattern.toString() : null;
	}

	/** The exchange as the mappings see it: attributes and response headers they set stay in this view. */
	final class Probe extends ServerWebExchangeDecorator {

		private final Map<String, Object> attributes;

		private final ServerHttpResponse response;

		Probe(ServerWebExchange exchange) {
			super(exchange);
			this.attributes = new ConcurrentHashMap<>(exchange.getAttributes());
			HttpHeaders headers = new HttpHeaders();
			headers.putAll(exchange.getResponse().getHeaders());
			this.response = new ServerHttpResponseDecorator(exchange.getResponse()) {

				@Override
				public HttpHeaders getHeaders() {
					return headers;
				}

			};
		}

		@Override
		public Map<String, Object> getAttributes() {
			return this.attributes;
		}

		@Override
		public ServerHttpResponse getResponse() {
			return this.response;
		}

		@Override
		@SuppressWarnings("unchecked")
		public <T> T getAttribute(String name) {
			return (T) this.attributes.get(name);
		}

	}

}
