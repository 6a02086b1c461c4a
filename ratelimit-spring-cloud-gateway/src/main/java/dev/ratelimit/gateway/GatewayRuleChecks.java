package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.lists.ListDeniedException;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.ResolutionFailures;
import org.jspecify.annotations.Nullable;

/**
 * The checks of the rules that a gateway route names: for the request (each rule's key, tier and cost), or for the key
 * the route's {@code KeyResolver} resolved (the gateway decides who the client is, the rule how much it may do: its
 * policy, shadow mode, denial status, failure mode). Rules are looked up per request, so overrides and reloads apply.
 */
final class GatewayRuleChecks {

	private final RateLimitRules rules;

	GatewayRuleChecks(RateLimitRules rules) {
		this.rules = rules;
	}

	/**
	 * Checks that every named rule exists and can apply to a gateway key.
	 * @param where the route argument that names them, for the error
	 * @param names the rule names
	 * @throws InvalidRateLimitRuleException naming the route argument when one cannot
	 */
	void validate(String where, List<String> names) {
		if (names.isEmpty()) {
			throw new InvalidRateLimitRuleException(where, "names no rule",
					"Name one or more rules of ratelimit.rules, e.g. rules: api");
		}
		for (String name : names) {
			RateLimitRule rule = this.rules.get(name)
				.orElseThrow(() -> new InvalidRateLimitRuleException(where, "there is no rule '" + name
						+ "' in ratelimit.rules", "Declare ratelimit.rules." + name + " or fix the name"));
			if (rule.distinct() != null) {
				throw new InvalidRateLimitRuleException(where, "rule '" + name + "' counts distinct values of a"
						+ " request, which a gateway key does not carry", "Apply it with match.paths instead");
			}
		}
	}

	/**
	 * Returns the checks of the named rules for a request: each rule's own key, tier and cost, or, with a key that
	 * the route's {@code KeyResolver} resolved, that key as the subject of each.
	 * @param names the rule names
	 * @param request the request
	 * @param key the key, or {@code null} for each rule's own
	 * @return the checks (a rule removed since the route was defined, or whose key resolves to nothing, is skipped; a
	 * check whose subject or client network the allow list holds for its rule is left out)
	 * @throws ListDeniedException when the deny list holds a subject or the client's network
	 */
	List<RateLimitCheck> checks(List<String> names, RateLimitRequest request, @Nullable String key) {
		ResolutionFailures failures = this.rules.resolutionFailures();
		List<RateLimitCheck> checks = new ArrayList<>(names.size());
		RateLimitLists lists = this.rules.lists();
		byte[] address = lists.isEmpty() ? null : lists.address(request);
		for (String name : names) {
			RateLimitRule rule = this.rules.get(name).orElse(null);
			RateLimitCheck check = (rule == null) ? null
					: (key == null) ? rule.check(request, failures)
							: rule.check(rule.policyFor(request, key, failures), key, cost(rule, request, failures));
			if (check != null && !lists.isEmpty()) {
				ListDenial denial = lists.denial(name, check.subject(), address);
				if (denial != null) {
					throw new ListDeniedException(denial);
				}
				if (lists.allows(name, check.subject(), address)) {
					continue;
				}
			}
			if (check != null) {
				checks.add(check);
			}
		}
		return checks;
	}

	private static long cost(RateLimitRule rule, RateLimitRequest request, ResolutionFailures failures) {
		try {
			return rule.cost().resolve(request);
		}
		catch (RuntimeException ex) {
			failures.report(rule.name(), ResolutionPart.COST, ex);
			return 1;
		}
	}

	/**
	 * Returns the checks of the named rules for one key, at cost 1 (without a request, the rule's key, tier key and
	 * cost cannot be read).
	 * @param names the rule names
	 * @param key the key that the route's {@code KeyResolver} resolved
	 * @return the checks (a rule removed since the route was defined is skipped)
	 */
	List<RateLimitCheck> checks(List<String> names, String key) {
		List<RateLimitCheck> checks = new ArrayList<>(names.size());
		for (String name : names) {
			this.rules.get(name).ifPresent((rule) -> checks.add(rule.check(rule.policy(), key, 1)));
		}
		return checks;
	}

}
