package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;

/**
 * The checks of the rules that a gateway route names, for the key the route's {@code KeyResolver} resolved: the
 * gateway decides who the client is, the rule how much it may do (its policy, cost 1, shadow mode, denial status,
 * failure mode). Rules are looked up per request, so overrides and reloads apply.
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
	 * Returns the checks of the named rules for one key.
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
