package dev.ratelimit.redis;

import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;

/**
 * The scripts of the store: the general one, and the GCRA fast path for evaluations whose checks are all GCRA.
 *
 * @param general the general script
 * @param gcra the GCRA fast path
 */
record ScriptsInUse(RateLimitScript general, RateLimitScript gcra) {

	ScriptsInUse() {
		this(new RateLimitScript(RateLimitScript.GENERAL), new RateLimitScript(RateLimitScript.GCRA));
	}

	/** Returns the GCRA fast path when evaluating checks that are all GCRA, else the general script. */
	RateLimitScript forChecks(List<RateLimitCheck> checks, RateLimitScript.Mode mode) {
		if (mode != RateLimitScript.Mode.EVALUATE) {
			return this.general;
		}
		for (RateLimitCheck check : checks) {
			if (check.policy().algorithm() != Algorithm.GCRA) {
				return this.general;
			}
		}
		return this.gcra;
	}

}
