package dev.ratelimit.web;

import dev.ratelimit.ClientIp;
import jakarta.servlet.http.HttpServletRequest;

/**
 * Makes the {@link ServletRateLimitRequest} views of servlet requests with this application's settings: how client
 * addresses are masked ({@code ratelimit.client-ip.*}) and how routes are found. The filter and the
 * {@code @RateLimited} aspect use the same one, so a rule keys a request alike in both.
 */
public final class ServletRateLimitRequests {

	private final ClientIp clientIp;

	private final RouteLookup routes;

	/**
	 * @param clientIp masks remote addresses into client networks
	 * @param routes finds the route template of a request's handler
	 */
	public ServletRateLimitRequests(ClientIp clientIp, RouteLookup routes) {
		this.clientIp = clientIp;
		this.routes = routes;
	}

	/**
	 * Returns the views of the defaults: {@link ClientIp#DEFAULT} and routes known once Spring MVC chose the handler.
	 * @return the views
	 */
	public static ServletRateLimitRequests defaults() {
		return new ServletRateLimitRequests(ClientIp.DEFAULT, RouteLookup.matchedPattern());
	}

	/**
	 * Returns the view of a request.
	 * @param request the request
	 * @return its view
	 */
	public ServletRateLimitRequest of(HttpServletRequest request) {
		return new ServletRateLimitRequest(request, this.clientIp, this.routes);
	}

	/** Returns how client addresses are masked. */
	public ClientIp clientIp() {
		return this.clientIp;
	}

}
