package dev.ratelimit.rule;

import java.util.List;
import java.util.Set;

import dev.ratelimit.RateLimitRequest;

import org.springframework.http.server.PathContainer;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Which requests a rule applies to: compiled path patterns and methods. Empty paths or methods match everything;
 * a disabled match matches nothing (the rule is used only by {@code @RateLimited}).
 *
 * @param enabled whether the rule applies to requests at all
 * @param paths included path patterns
 * @param excludePaths excluded path patterns
 * @param methods upper-case HTTP methods
 */
public record RequestMatch(boolean enabled, List<PathPattern> paths, List<PathPattern> excludePaths, Set<String> methods) {

	public RequestMatch {
		paths = List.copyOf(paths);
		excludePaths = List.copyOf(excludePaths);
		methods = Set.copyOf(methods);
	}

	/** A match for every request. */
	public static RequestMatch all() {
		return new RequestMatch(true, List.of(), List.of(), Set.of());
	}

	/**
	 * Returns whether the request matches.
	 * @param request the request
	 * @param path the request's path within the application, parsed once per request
	 */
	public boolean matches(RateLimitRequest request, PathContainer path) {
		if (!this.enabled || (!this.methods.isEmpty() && !this.methods.contains(request.getMethod()))) {
			return false;
		}
		if (!this.paths.isEmpty() && !anyMatch(this.paths, path)) {
			return false;
		}
		return !anyMatch(this.excludePaths, path);
	}

	private static boolean anyMatch(List<PathPattern> patterns, PathContainer path) {
		for (PathPattern pattern : patterns) {
			if (pattern.matches(path)) {
				return true;
			}
		}
		return false;
	}

}
