package dev.ratelimit.web;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

/**
 * Finds the route template of the handler that will serve a servlet request, before it runs: what
 * {@link ServletRateLimitRequest#route()} returns and key {@code endpoint} reads. With Spring MVC it is
 * {@link HandlerMappingRoutes}.
 */
@FunctionalInterface
public interface RouteLookup {

	/** The request attribute in which Spring MVC leaves the pattern of the handler it chose. */
	String MATCHED_PATTERN_ATTRIBUTE = "org.springframework.web.servlet.HandlerMapping.bestMatchingPattern";

	/**
	 * Returns the route of a request.
	 * @param request the request
	 * @return the route template, e.g. {@code /api/reports/{user}}, or {@code null} when no handler maps the request
	 */
	@Nullable String route(HttpServletRequest request);

	/**
	 * Returns the lookup that knows a route only once Spring MVC has chosen the handler (as in a {@code @RateLimited}
	 * method of a controller), from {@link #MATCHED_PATTERN_ATTRIBUTE}; before that, no request has one.
	 * @return the lookup
	 */
	static RouteLookup matchedPattern() {
		return (request) -> (request.getAttribute(MATCHED_PATTERN_ATTRIBUTE) instanceof String pattern) ? pattern : null;
	}

}
