package dev.ratelimit.rule;

/**
 * Where the servlet filter applies a rule when Spring Security's filter chain is present: before it, so that every
 * attempt counts (including those it rejects), or after it, so that the key sees the authenticated principal.
 * Without Spring Security, one filter applies every rule.
 */
public enum RulePhase {

	/**
	 * After authentication when the rule's key or tier key has a {@code user} part, else before. Resolved when the
	 * rule is compiled: a compiled rule is never {@code AUTO}.
	 */
	AUTO,

	/** Before Spring Security's filter chain: requests it rejects (401, 403) count too. */
	BEFORE_AUTHENTICATION,

	/** After Spring Security's filter chain: the request carries the authenticated principal. */
	AFTER_AUTHENTICATION

}
