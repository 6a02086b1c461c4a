package dev.ratelimit.resilience;

/**
 * What a rule does while its store is unavailable.
 */
public enum StoreFailureMode {

	/** Enforce the rule in this instance's memory (the effective limit is multiplied by the number of instances). */
	LOCAL,

	/** Admit (fail open). */
	ALLOW,

	/** Reject with 503 Service Unavailable (fail closed). */
	DENY

}
