package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.resilience.StoreFailureMode;

/**
 * Decides a request without the shared store, each rule by its {@link StoreFailureMode}: {@code local} rules by this
 * instance's memory, {@code allow} rules admitted, and an enforced {@code deny} rule rejects the whole request as
 * {@link Verdict#storeUnavailable() store unavailable} (503), consuming nothing anywhere.
 */
final class FallbackDecider {

	private final RateLimiter local;

	private final Function<String, StoreFailureMode> failureModes;

	private final Duration unavailableRetryAfter;

	/**
	 * @param local the limiter over this instance's memory
	 * @param failureModes the failure mode of each rule, by policy name
	 * @param unavailableRetryAfter the {@code Retry-After} of requests that fail closed
	 */
	FallbackDecider(RateLimiter local, Function<String, StoreFailureMode> failureModes, Duration unavailableRetryAfter) {
		this.local = local;
		this.failureModes = failureModes;
		this.unavailableRetryAfter = unavailableRetryAfter;
	}

	Verdict decide(List<RateLimitCheck> checks) {
		List<Integer> local = new ArrayList<>();
		boolean failClosed = false;
		for (int i = 0; i < checks.size(); i++) {
			StoreFailureMode mode = mode(checks.get(i));
			if (mode == StoreFailureMode.DENY && checks.get(i).enforced()) {
				failClosed = true;
			}
			else if (mode == StoreFailureMode.LOCAL || mode == StoreFailureMode.DENY) {
				local.add(i);
			}
		}
		Decision[] decisions = new Decision[checks.size()];
		if (failClosed) {
			for (int i = 0; i < checks.size(); i++) {
				RateLimitCheck check = checks.get(i);
				boolean closes = check.enforced() && mode(check) == StoreFailureMode.DENY;
				decisions[i] = closes ? new Decision(false, check.policy().limit(), 0, Duration.ZERO,
						this.unavailableRetryAfter) : unknown(check);
			}
			return new Verdict(checks, List.of(decisions), true);
		}
		if (!local.isEmpty()) {
			List<RateLimitCheck> localChecks = local.stream().map(checks::get).toList();
			List<Decision> localDecisions = this.local.evaluate(localChecks).decisions();
			for (int j = 0; j < local.size(); j++) {
				decisions[local.get(j)] = localDecisions.get(j);
			}
		}
		for (int i = 0; i < checks.size(); i++) {
			if (decisions[i] == null) {
				decisions[i] = unknown(checks.get(i));
			}
		}
		return new Verdict(checks, List.of(decisions));
	}

	/** Forgets a subject's state in this instance's memory. */
	void reset(RateLimitPolicy policy, String subject) {
		this.local.reset(policy, subject);
	}

	/** Returns the limiter leases are released in and renewed by. */
	RateLimiter leaseHolder() {
		return this.local;
	}

	private StoreFailureMode mode(RateLimitCheck check) {
		return this.failureModes.apply(check.policy().name());
	}

	/** The decision of a check that nothing evaluated (fail-open, or not reached): admitted, full quota. */
	private static Decision unknown(RateLimitCheck check) {
		return new Decision(true, check.policy().limit(), check.policy().limit(), Duration.ZERO, Duration.ZERO);
	}

}
