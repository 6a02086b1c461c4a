package dev.ratelimit.web.reactive;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitRequest;
import reactor.core.publisher.Mono;

/**
 * Resolves whose quota a request uses when finding it takes I/O (a lookup in a database, a call to another service):
 * the reactive form of {@link KeyResolver}. Declare one as a bean and refer to it from a rule as
 * {@code key: "@beanName"} (also in composite keys and {@code tier-key}), as for a {@link KeyResolver}.
 * <p>
 * On WebFlux, the filter subscribes to it before it evaluates the request's rules, only for requests that a rule
 * using it matches, and never blocks on it. On the servlet stack it is awaited on the request thread.
 */
@FunctionalInterface
public interface ReactiveKeyResolver {

	/**
	 * Resolves the subject of a request.
	 * @param request the request
	 * @return the subject; empty when the rule does not apply to this request
	 */
	Mono<String> resolve(RateLimitRequest request);

	/**
	 * Returns the {@link KeyResolver} that rules use for a reactive resolver bean: on WebFlux it reads the subject
	 * that the filter resolved for the request, elsewhere it awaits it.
	 * @param name the bean name
	 * @param resolver the bean
	 * @return the resolver to compile into rules
	 */
	static KeyResolver adapt(String name, ReactiveKeyResolver resolver) {
		return (request) -> (request instanceof ServerRateLimitRequest server) ? server.reactiveKey(name, resolver)
				: resolver.resolve(request).block();
	}

}
