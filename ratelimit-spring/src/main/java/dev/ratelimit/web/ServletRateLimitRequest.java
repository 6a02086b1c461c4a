package dev.ratelimit.web;

import java.security.Principal;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimitRequest} of a servlet request: every method reads the {@link HttpServletRequest} of the same
 * name, as it is at the time of the call; {@link #clientIp()} masks the remote address as its {@link ClientIp} says
 * and {@link #route()} asks its {@link RouteLookup} once per request (the answer is kept in a request attribute, so
 * the filters before and after authentication look it up once).
 */
public final class ServletRateLimitRequest implements RateLimitRequest {

	/** Request attribute keeping the route found for the request ({@code ""} when none maps it). */
	static final String ROUTE_ATTRIBUTE = ServletRateLimitRequest.class.getName() + ".route";

	private final HttpServletRequest request;

	private final ClientIp clientIp;

	private final RouteLookup routes;

	private @Nullable String clientSubject;

	/**
	 * Creates the view of a request with the default client networks ({@link ClientIp#DEFAULT}), whose route is known
	 * only once Spring MVC has chosen the handler ({@link RouteLookup#matchedPattern()}).
	 * @param request the servlet request
	 */
	public ServletRateLimitRequest(HttpServletRequest request) {
		this(request, ClientIp.DEFAULT, RouteLookup.matchedPattern());
	}

	/**
	 * @param request the servlet request
	 * @param clientIp masks the remote address into the client's network
	 * @param routes finds the route template of the request's handler
	 */
	public ServletRateLimitRequest(HttpServletRequest request, ClientIp clientIp, RouteLookup routes) {
		this.request = request;
		this.clientIp = clientIp;
		this.routes = routes;
	}

	@Override
	public String getMethod() {
		return this.request.getMethod();
	}

	@Override
	public String getRequestURI() {
		return this.request.getRequestURI();
	}

	@Override
	public String getContextPath() {
		return this.request.getContextPath();
	}

	@Override
	public @Nullable String getHeader(String name) {
		return this.request.getHeader(name);
	}

	@Override
	public @Nullable String getParameter(String name) {
		return this.request.getParameter(name);
	}

	@Override
	public String getRemoteAddr() {
		return this.request.getRemoteAddr();
	}

	@Override
	public String clientIp() {
		// parsed once per view: a composite key or a fallback may ask again
		String subject = this.clientSubject;
		if (subject == null) {
			subject = this.clientIp.subject(this.request.getRemoteAddr());
			this.clientSubject = subject;
		}
		return subject;
	}

	@Override
	public @Nullable String route() {
		// once Spring MVC has chosen the handler (in a @RateLimited controller method), its pattern is the answer
		String matched = RouteLookup.matchedPattern().route(this.request);
		if (matched != null) {
			return matched;
		}
		if (this.request.getAttribute(ROUTE_ATTRIBUTE) instanceof String known) {
			return known.isEmpty() ? null : known;
		}
		String route = this.routes.route(this.request);
		this.request.setAttribute(ROUTE_ATTRIBUTE, (route != null) ? route : "");
		return route;
	}

	@Override
	public @Nullable Principal getUserPrincipal() {
		return this.request.getUserPrincipal();
	}

	@Override
	public @Nullable Object getAttribute(String name) {
		return this.request.getAttribute(name);
	}

	@Override
	public HttpServletRequest getNativeRequest() {
		return this.request;
	}

}
