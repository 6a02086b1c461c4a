package dev.ratelimit.web;

import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.ServerHttpObservationFilter;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.handler.AbstractUrlHandlerMapping;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.pattern.PathPattern;

/**
 * The route of a request as Spring MVC will choose it: asks the {@link HandlerMapping}s in the
 * {@code DispatcherServlet}'s order (those of Spring's {@code HandlerMappingIntrospector}) for the handler, and reads
 * the pattern the first one that maps the request matched, e.g. {@code /api/reports/{user}}. This is the pattern
 * Micrometer tags as {@code uri}; for a URL-mapped handler such as static resources, which exposes it only when it
 * runs, it is the most specific of its patterns that matches.
 * <p>
 * The mappings see a view of the request whose attributes are its own: what they set while matching (the parsed path,
 * the pattern, the URI variables, the producible media types) is not left on the request, and the observation of the
 * request is hidden from them, so the request reaches the {@code DispatcherServlet} as it came. A request that no
 * mapping maps, or whose mapping refuses it (a method or media type it does not accept, which the
 * {@code DispatcherServlet} answers with 405, 406 or 415), has no route. Nothing is cached between requests: the
 * lookup costs what the {@code DispatcherServlet}'s own costs, and is done only for rules with an {@code endpoint} key.
 */
public final class HandlerMappingRoutes implements RouteLookup {

	private final Supplier<List<HandlerMapping>> mappings;

	/**
	 * @param mappings the handler mappings in the order the {@code DispatcherServlet} asks them, e.g.
	 * {@code HandlerMappingIntrospector::getHandlerMappings}; asked at every lookup
	 */
	public HandlerMappingRoutes(Supplier<List<HandlerMapping>> mappings) {
		this.mappings = mappings;
	}

	@Override
	public @Nullable String route(HttpServletRequest request) {
		Probe probe = new Probe(request);
		ServletRequestPathUtils.parseAndCache(probe);
		for (HandlerMapping mapping : this.mappings.get()) {
			HandlerExecutionChain chain;
			try {
				chain = mapping.getHandler(probe);
			}
			catch (Exception ex) {
				// the mapping matched the path but refuses the request (405, 406, 415...): no handler will serve it
				return null;
			}
			if (chain != null) {
				Object pattern = probe.ownAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
				return (pattern instanceof String string) ? string : urlPattern(mapping, probe);
			}
		}
		return null;
	}

	/** The most specific pattern of a URL mapping that matches, which it would expose only when its handler runs. */
	private static @Nullable String urlPattern(HandlerMapping mapping, HttpServletRequest probe) {
		if (!(mapping instanceof AbstractUrlHandlerMapping urlMapping)) {
			return null;
		}
		PathContainer path = ServletRequestPathUtils.getParsedRequestPath(probe).pathWithinApplication();
		PathPattern best = null;
		for (PathPattern pattern : urlMapping.getPathPatternHandlerMap().keySet()) {
			if (pattern.matches(path) && (best == null || PathPattern.SPECIFICITY_COMPARATOR.compare(pattern, best) < 0)) {
				best = pattern;
			}
		}
		if (best != null) {
			return best.getPatternString();
		}
		// the root handler (e.g. the welcome page) has no pattern of its own
		return (urlMapping.getRootHandler() != null && path.value().equals("/")) ? "/" : null;
	}

	/** The request as the mappings see it: attributes they set or remove stay in this view. */
	private static final class Probe extends HttpServletRequestWrapper {

		private final Map<String, Object> attributes = new HashMap<>();

		private final Set<String> removed = new HashSet<>();

		Probe(HttpServletRequest request) {
			super(request);
			// a matching mapping would tag the request's observation with its pattern
			this.removed.add(ServerHttpObservationFilter.CURRENT_OBSERVATION_CONTEXT_ATTRIBUTE);
		}

		@Nullable Object ownAttribute(String name) {
			return this.attributes.get(name);
		}

		@Override
		public @Nullable Object getAttribute(String name) {
			Object own = this.attributes.get(name);
			if (own != null || this.removed.contains(name)) {
				return own;
			}
			return super.getAttribute(name);
		}

		@Override
		public Enumeration<String> getAttributeNames() {
			Set<String> names = new HashSet<>(Collections.list(super.getAttributeNames()));
			names.removeAll(this.removed);
			names.addAll(this.attributes.keySet());
			return Collections.enumeration(names);
		}

		@Override
		public void setAttribute(String name, @Nullable Object value) {
			if (value == null) {
				removeAttribute(name);
				return;
			}
			this.attributes.put(name, value);
			this.removed.remove(name);
		}

		@Override
		public void removeAttribute(String name) {
			this.attributes.remove(name);
			this.removed.add(name);
		}

	}

}
