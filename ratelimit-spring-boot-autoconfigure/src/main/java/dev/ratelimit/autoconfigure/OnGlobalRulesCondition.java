package dev.ratelimit.autoconfigure;

/**
 * Matches when a rule has {@code scope: global}: only then are the other regions' Redis connected and entries
 * replicated.
 */
class OnGlobalRulesCondition extends OnRulesCondition {

	OnGlobalRulesCondition() {
		super((rule) -> rule.getScope() == RateLimitProperties.Scope.GLOBAL, "scope: global");
	}

}
