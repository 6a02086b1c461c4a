package dev.ratelimit.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import org.jspecify.annotations.Nullable;

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
			if (check.policy().algorithm() != Algorithm.GCRA || check.policy().warmsUp() || !check.maxWait().isZero()) {
				return this.general;
			}
		}
		return this.gcra;
	}

	/**
	 * Gives back what an evaluation that admitted consumed (the checks that admitted, at their cost; the leases they
	 * acquired), then inspects.
	 * @param commands where to run it
	 * @param keys one key per check
	 * @param checks the checks of the evaluation
	 * @param admitted its reply
	 * @param now the time to use, or {@code null} for Redis {@code TIME}
	 * @param leaseId the id of the leases it acquired
	 * @return the checks' state without the request
	 */
	CompletableFuture<RateLimitScript.Reply> refund(IssuedCommands commands, byte[][] keys, List<RateLimitCheck> checks,
			RateLimitScript.Reply admitted, @Nullable Long now, String leaseId) {
		List<RateLimitCheck> consumed = new ArrayList<>(checks.size());
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			boolean distinct = check.policy().algorithm() == Algorithm.DISTINCT;
			// a distinct check gives back its value only if its admission added it (a value seen before stays)
			boolean consumedSome = admitted.decisions().get(i).allowed() && (!distinct || admitted.added()[i]);
			consumed.add(check.withCost(consumedSome ? check.cost() : 0));
		}
		return this.general.run(commands, keys, consumed, now, RateLimitScript.Mode.refund(admitted.nowMicros()),
				leaseId);
	}

}
