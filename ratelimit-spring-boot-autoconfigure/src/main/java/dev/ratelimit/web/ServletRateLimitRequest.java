package dev.ratelimit.web;

import java.security.Principal;

import dev.ratelimit.RateLimitRequest;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RateLimitRequest} of a servlet request: every method reads the {@link HttpServletRequest} of the same
 * name, as it is at the time of the call.
 */
public final class ServletRateLimitRequest implements RateLimitRequest {

	private final HttpServletRequest request;

	/**
	 * @param request the servlet request
	 */
	public ServletRateLimitRequest(HttpServletRequest request) {
		this.request = request;
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
