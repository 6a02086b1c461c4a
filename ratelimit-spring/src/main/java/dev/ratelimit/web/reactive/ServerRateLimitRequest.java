package dev.ratelimit.web.reactive;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * The {@link RateLimitRequest} of a WebFlux exchange. What takes I/O to know (the principal, the route of the handler,
 * the subjects of {@link ReactiveKeyResolver}s) is resolved before rules read it: a first view records what the rules
 * that match the request ask for ({@link #needsResolution()}); {@link #resolve()} resolves exactly that without
 * blocking and returns the view that the rules are evaluated with.
 * <ul>
 * <li>{@link #getRemoteAddr()} is {@link ServerHttpRequest#getRemoteAddress()}, as the server determined it (behind
 * proxies, as {@code server.forward-headers-strategy} says), masked by {@link #clientIp()} as
 * {@code ratelimit.client-ip.*} says;</li>
 * <li>{@link #getUserPrincipal()} is {@link ServerWebExchange#getPrincipal()} (with Spring Security, the
 * authentication of the reactive security context);</li>
 * <li>{@link #getParameter(String)} reads the query string only: a form body is not read here;</li>
 * <li>{@link #getAttribute(String)} reads the exchange's attributes, and {@link #getNativeRequest()} is the
 * {@link ServerWebExchange}.</li>
 * </ul>
 */
public final class ServerRateLimitRequest implements RateLimitRequest {

	private final ServerWebExchange exchange;

	private final ClientIp clientIp;

	private final ServerRouteLookup routes;

	private final Resolved resolved;

	private @Nullable String clientSubject;

	/**
	 * Creates the first view of an exchange: nothing that needs I/O is resolved yet.
	 * @param exchange the exchange
	 * @param clientIp masks the remote address into the client's network
	 * @param routes finds the route template of the request's handler
	 */
	public ServerRateLimitRequest(ServerWebExchange exchange, ClientIp clientIp, ServerRouteLookup routes) {
		this(exchange, clientIp, routes, new Resolved());
	}

	private ServerRateLimitRequest(ServerWebExchange exchange, ClientIp clientIp, ServerRouteLookup routes,
			Resolved resolved) {
		this.exchange = exchange;
		this.clientIp = clientIp;
		this.routes = routes;
		this.resolved = resolved;
	}

	/**
	 * Returns whether the rules read something of this view that needs I/O and is not resolved yet.
	 * @return whether {@link #resolve()} must be called before the rules are evaluated
	 */
	public boolean needsResolution() {
		return this.resolved.needsResolution();
	}

	/**
	 * Resolves what the rules asked of this view and is not known yet, without blocking.
	 * @return a view where it is known
	 */
	public Mono<ServerRateLimitRequest> resolve() {
		Resolved next = this.resolved.copy();
		Mono<?> principal = next.principalNeeded && next.principal == null
				? this.exchange.getPrincipal().map(Optional::of).defaultIfEmpty(Optional.empty())
					.doOnNext((found) -> next.principal = found)
				: Mono.empty();
		Mono<?> route = next.routeNeeded && next.route == null
				? this.routes.route(this.exchange).map(Optional::of).defaultIfEmpty(Optional.empty())
					.doOnNext((found) -> next.route = found)
				: Mono.empty();
		Flux<?> keys = Flux.fromIterable(Map.copyOf(next.keysNeeded).entrySet())
			.flatMap((needed) -> needed.getValue().resolve(this).map(Optional::of).defaultIfEmpty(Optional.empty())
				.doOnNext((subject) -> next.keys.put(needed.getKey(), subject)));
		return Flux.merge(principal, route, keys)
			.then(Mono.fromSupplier(() -> new ServerRateLimitRequest(this.exchange, this.clientIp, this.routes,
					next.resolvedOnly())));
	}

	@Override
	public String getMethod() {
		return this.exchange.getRequest().getMethod().name();
	}

	@Override
	public String getRequestURI() {
		return this.exchange.getRequest().getPath().value();
	}

	@Override
	public String getContextPath() {
		return this.exchange.getRequest().getPath().contextPath().value();
	}

	@Override
	public @Nullable String getHeader(String name) {
		return this.exchange.getRequest().getHeaders().getFirst(name);
	}

	@Override
	public @Nullable String getParameter(String name) {
		return this.exchange.getRequest().getQueryParams().getFirst(name);
	}

	@Override
	public String getRemoteAddr() {
		InetSocketAddress remote = this.exchange.getRequest().getRemoteAddress();
		if (remote == null) {
			return "";
		}
		InetAddress address = remote.getAddress();
		return (address != null) ? address.getHostAddress() : remote.getHostString();
	}

	@Override
	public String clientIp() {
		String subject = this.clientSubject;
		if (subject == null) {
			subject = this.clientIp.subject(getRemoteAddr());
			this.clientSubject = subject;
		}
		return subject;
	}

	@Override
	public @Nullable String route() {
		Optional<String> route = this.resolved.route;
		if (route == null) {
			this.resolved.routeNeeded = true;
			return null;
		}
		return route.orElse(null);
	}

	@Override
	public @Nullable Principal getUserPrincipal() {
		Optional<Principal> principal = this.resolved.principal;
		if (principal == null) {
			this.resolved.principalNeeded = true;
			return null;
		}
		return principal.orElse(null);
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.exchange.getAttribute(name);
	}

	@Override
	public ServerWebExchange getNativeRequest() {
		return this.exchange;
	}

	/**
	 * Returns the subject that a reactive key resolver gave for this request, or records that it is needed.
	 * @param name the resolver's bean name
	 * @param resolver the resolver
	 * @return the subject, or {@code null} when it gave none or is not resolved yet
	 */
	@Nullable String reactiveKey(String name, ReactiveKeyResolver resolver) {
		Optional<String> subject = this.resolved.keys.get(name);
		if (subject == null) {
			this.resolved.keysNeeded.put(name, resolver);
			return null;
		}
		return subject.orElse(null);
	}

	/** What is known of the request beyond its headers, and what the rules asked for that is not. */
	private static final class Resolved {

		private @Nullable Optional<Principal> principal;

		private boolean principalNeeded;

		private @Nullable Optional<String> route;

		private boolean routeNeeded;

		private final Map<String, Optional<String>> keys = new ConcurrentHashMap<>();

		private final Map<String, ReactiveKeyResolver> keysNeeded = new LinkedHashMap<>();

		boolean needsResolution() {
			return (this.principalNeeded && this.principal == null) || (this.routeNeeded && this.route == null)
					|| !this.keysNeeded.isEmpty();
		}

		Resolved copy() {
			Resolved copy = new Resolved();
			copy.principal = this.principal;
			copy.principalNeeded = this.principalNeeded;
			copy.route = this.route;
			copy.routeNeeded = this.routeNeeded;
			copy.keys.putAll(this.keys);
			copy.keysNeeded.putAll(this.keysNeeded);
			return copy;
		}

		/** This state once resolved: what was needed is known, nothing is needed. */
		Resolved resolvedOnly() {
			this.keysNeeded.clear();
			this.principalNeeded = false;
			this.routeNeeded = false;
			return this;
		}

	}

}
