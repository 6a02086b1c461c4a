package dev.ratelimit.rule;

/**
 * Whether a rule blocks.
 */
public enum RuleMode {

	/** Denied requests are rejected. */
	ENFORCE,

	/** Evaluated, counted and logged; never blocks, never fails another rule, sends no headers. */
	SHADOW

}
