package dev.ratelimit;

import java.security.Principal;

import org.jspecify.annotations.Nullable;

/**
 * What rules, keys and costs read of an HTTP request, whatever the web stack: built by each adapter (the servlet
 * filter and the {@code @RateLimited} aspect from a servlet request; a reactive adapter from its own request) and
 * passed to {@link KeyResolver}s, cost resolvers and SpEL templates, where it is {@code request}.
 * <p>
 * The methods carry the names of the Servlet API's {@code HttpServletRequest}, so that templates such as
 * {@code #{request.getHeader('X-Tenant')}} or {@code #{request.userPrincipal?.name}} and resolvers such as
 * {@code (request) -> request.getHeader("X-Tenant")} read the same on every stack. What the view does not offer is
 * reached through {@link #getNativeRequest(Class)}, at the price of working on one stack only.
 */
public interface RateLimitRequest {

	/**
	 * Returns the HTTP method.
	 * @return the method, upper case, e.g. {@code GET}
	 */
	String getMethod();

	/**
	 * Returns the path of the request as received, context path included, not decoded.
	 * @return the path, e.g. {@code /shop/api/items/7}
	 */
	String getRequestURI();

	/**
	 * Returns the part of {@link #getRequestURI()} that selects the application.
	 * @return the context path, empty for the root context, e.g. {@code /shop}
	 */
	String getContextPath();

	/**
	 * Returns the path within the application, which rules match against: {@link #getRequestURI()} without
	 * {@link #getContextPath()}.
	 * @return the path, e.g. {@code /api/items/7}
	 */
	default String path() {
		return getRequestURI().substring(getContextPath().length());
	}

	/**
	 * Returns a header's first value.
	 * @param name the header name, in any case
	 * @return the value, or {@code null} when the request has none
	 */
	@Nullable String getHeader(String name);

	/**
	 * Returns a request parameter's first value: from the query string or, as the web stack reads them, a form body.
	 * @param name the parameter name
	 * @return the value, or {@code null} when the request has none
	 */
	@Nullable String getParameter(String name);

	/**
	 * Returns the address of the client, as the web server determined it (behind proxies, as
	 * {@code server.forward-headers-strategy} says).
	 * @return the address, e.g. {@code 203.0.113.7}
	 */
	String getRemoteAddr();

	/**
	 * Returns the client as rules key it wherever the IP is the subject ({@code ip}) or the fallback subject (an
	 * anonymous {@code user}, a missing {@code api-key} or header, an empty template): {@link #getRemoteAddr()} masked
	 * to its network as {@code ratelimit.client-ip.*} says, so that the addresses of one IPv6 customer share a quota.
	 * This default masks as the defaults of those properties do (IPv4 whole, IPv6 by its /64); the servlet adapter
	 * masks as configured.
	 * @return the client's network, e.g. {@code 2001:db8:1:2::/64} or {@code 203.0.113.7}
	 * @see ClientIp
	 */
	default String clientIp() {
		return ClientIp.DEFAULT.subject(getRemoteAddr());
	}

	/**
	 * Returns the route template of the handler that will serve the request, found before it runs: the pattern that
	 * Spring MVC matched and that Micrometer tags as {@code uri}, e.g. {@code /api/reports/{user}} for
	 * {@code /api/reports/alice}. Key {@code endpoint} is the method and this route.
	 * @return the route, or {@code null} when no handler maps the request (or this web stack cannot tell)
	 */
	default @Nullable String route() {
		return null;
	}

	/**
	 * Returns the authenticated principal.
	 * @return the principal, or {@code null} for an anonymous request
	 */
	@Nullable Principal getUserPrincipal();

	/**
	 * Returns a request attribute.
	 * @param name the attribute name
	 * @return the value, or {@code null} when it is not set
	 */
	@Nullable Object getAttribute(String name);

	/**
	 * Returns the web stack's own request, e.g. a servlet {@code HttpServletRequest}.
	 * @return the request this view reads
	 */
	Object getNativeRequest();

	/**
	 * Returns the web stack's own request as a type, for code that needs more than this view and runs on one stack
	 * only, e.g. {@code request.getNativeRequest(HttpServletRequest.class)} (in SpEL, {@code request.nativeRequest}).
	 * @param <T> the type
	 * @param type the type, e.g. {@code HttpServletRequest.class}
	 * @return the request, or {@code null} when it is not of that type
	 */
	default <T> @Nullable T getNativeRequest(Class<T> type) {
		Object request = getNativeRequest();
		return type.isInstance(request) ? type.cast(request) : null;
	}

}
