package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.lists.RateLimitLists;
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
		return match(request, phase).checks();
	}

	/**
	 * Returns the checks of every rule of a phase that matches the request, in rule order, as the allow and deny
	 * lists ({@link RateLimitRules#lists()}) leave them: a check whose subject (or client network) the allow list
	 * holds for its rule is left out, and a request whose subject or network the deny list holds is denied with no
	 * check at all (so it costs no store call).
	 * @param request the request
	 * @param phase the phase whose rules apply, or {@code null} for every rule
	 * @return the checks, or the denial
	 */
	public Matched match(RateLimitRequest request, @Nullable RulePhase phase) {
		RateLimitRule[] effective = this.rules.effective();
		if (effective.length == 0) {
			return Matched.NONE;
		}
		RateLimitLists lists = this.rules.lists();
		boolean listed = !lists.isEmpty();
		byte[] address = listed ? lists.address(request) : null;
		PathContainer path = PathContainer.parsePath(request.path());
		ResolutionFailures failures = this.rules.resolutionFailures();
		List<RateLimitCheck> checks = null;
		for (RateLimitRule rule : effective) {
			if ((phase == null || rule.phase() == phase) && rule.match().matches(request, path)) {
				RateLimitCheck check = rule.check(request, failures);
				if (check != null && listed) {
					ListDenial denial = lists.denial(rule.name(), check.subject(), address);
					if (denial != null) {
						return new Matched(List.of(), denial);
					}
					if (lists.allows(rule.name(), check.subject(), address)) {
						continue;
					}
				}
				if (check != null) {
					if (checks == null) {
						checks = new ArrayList<>(effective.length);
					}
					checks.add(check);
				}
			}
		}
		return (checks != null) ? new Matched(checks, null) : Matched.NONE;
	}

	/**
	 * The checks of a request, or its denial by the deny list.
	 *
	 * @param checks the checks to evaluate (empty when denied)
	 * @param denial the deny list's denial, or {@code null}
	 */
	public record Matched(List<RateLimitCheck> checks, @Nullable ListDenial denial) {

		static final Matched NONE = new Matched(List.of(), null);

	}

}
