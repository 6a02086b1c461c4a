package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.ratelimit.RateLimitCheck;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.http.server.PathContainer;

/**
 * The compiled rules, in configuration order.
 */
public final class RateLimitRules {

	private final Map<String, RateLimitRule> byName;

	private final RateLimitRule[] rules;

	public RateLimitRules(List<RateLimitRule> rules) {
		this.byName = new LinkedHashMap<>();
		for (RateLimitRule rule : rules) {
			this.byName.put(rule.name(), rule);
		}
		this.rules = rules.toArray(RateLimitRule[]::new);
	}

	/** Returns every rule. */
	public List<RateLimitRule> all() {
		return List.of(this.rules);
	}

	/** Returns the rule of that name. */
	public Optional<RateLimitRule> get(String name) {
		return Optional.ofNullable(this.byName.get(name));
	}

	/** Returns whether there are no rules. */
	public boolean isEmpty() {
		return this.rules.length == 0;
	}

	/**
	 * Returns the checks of every rule that matches the request, in rule order.
	 * @param request the request
	 * @return the checks, empty when no rule applies
	 */
	public List<RateLimitCheck> checksFor(HttpServletRequest request) {
		if (this.rules.length == 0) {
			return List.of();
		}
		PathContainer path = PathContainer
			.parsePath(request.getRequestURI().substring(request.getContextPath().length()));
		List<RateLimitCheck> checks = null;
		for (RateLimitRule rule : this.rules) {
			if (rule.match().matches(request, path)) {
				RateLimitCheck check = rule.check(request);
				if (check != null) {
					if (checks == null) {
						checks = new ArrayList<>(this.rules.length);
					}
					checks.add(check);
				}
			}
		}
		return (checks != null) ? checks : List.of();
	}

}
