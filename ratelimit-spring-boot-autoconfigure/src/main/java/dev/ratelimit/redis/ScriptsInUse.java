package dev.ratelimit.redis;

import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;

/**
 * The scripts of the store: the general one, the GCRA fast path for evaluations whose checks are all GCRA, and the
 * script that releases and renews leases.
 *
 * @param general the general script
 * @param gcra the GCRA fast path
 * @param leases the lease script
 */
record ScriptsInUse(RateLimitScript general, RateLimitScript gcra, LeaseScript leases) {

	ScriptsInUse() {
		this(new RateLimitScript(RateLimitScript.GENERAL), new RateLimitScript(RateLimitScript.GCRA),
				new LeaseScript());
	}

	/**
	 * Returns the GCRA fast path when evaluating checks that are all GCRA and never reserve, else the general script.
	 */
	RateLimitScript forChecks(List<RateLimitCheck> checks, RateLimitScript.Mode mode) {
		if (mode != RateLimitScript.Mode.EVALUATE) {
			return this.general;
		}
		for (RateLimitCheck check : checks) {
			if (check.policy().algorithm() != Algorithm.GCRA || !check.maxWait().isZero()) {
				return this.general;
			}
		}
		return this.gcra;
	}

}
