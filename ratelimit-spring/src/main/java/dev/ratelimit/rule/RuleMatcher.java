package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;

/**
 * Finds the checks of a request: every rule in effect (of one phase, or all) that matches it, with its key, tier and
 * cost resolved. A key, tier key or cost that cannot be resolved goes to the rules' {@link ResolutionFailures} before
 * the rule falls back. Each web adapter builds the {@link RateLimitRequest} and asks one of these.
 */
public final class RuleMatcher {

	private final RateLimitRules rules;

	/**
	 * @param rules the rules in effect, read anew for every request
	 */
	public RuleMatcher(RateLimitRules rules) {
		this.rules = rules;
	}

	/**
	 * Returns the checks of every rule that matches the request, in rule order.
	 * @param request the request
	 * @return the checks, empty when no rule applies
	 */
	public List<RateLimitCheck> checksFor(RateLimitRequest request) {
		return checksFor(request, null);
	}

	/**
	 * Returns the checks of every rule of a phase that matches the request, in rule order.
	 * @param request the request
	 * @param phase the phase whose rules apply, or {@code null} for every rule
	 * @return the checks, empty when no rule applies
	 */
	public List<RateLimitCheck> checksFor(RateLimitRequest request, @Nullable RulePhase phase) {
		RateLimitRule[] effective = this.rules.effective();
		if (effective.length == 0) {
			return List.of();
		}
		PathContainer path = PathContainer.parsePath(request.path());
		ResolutionFailures failures = this.rules.resolutionFailures();
		List<RateLimitCheck> checks = null;
		for (RateLimitRule rule : effective) {
			if ((phase == null || rule.phase() == phase) && rule.match().matches(request, path)) {
				RateLimitCheck check = rule.check(request, failures);
				if (check != null) {
					if (checks == null) {
						checks = new ArrayList<>(effective.length);
					}
					checks.add(check);
				}
			}
		}
		return (checks != null) ? checks : List.of();
	}

}
