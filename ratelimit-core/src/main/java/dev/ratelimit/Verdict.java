package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * The answer to all checks of one request: one {@link Decision} per {@link RateLimitCheck}, in the same order, and
 * the overall answer. The request is allowed exactly when every enforced check allows it; a denied request consumed
 * nothing in any check.
 *
 * @param checks the checks
 * @param decisions one decision per check
 * @param storeUnavailable whether the request is denied because the store is unavailable and a rule fails closed
 * ({@code on-store-failure: deny}); such a denial is the server's problem (503), not the client's (429)
 */
public record Verdict(List<RateLimitCheck> checks, List<Decision> decisions, boolean storeUnavailable) {

	public Verdict {
		checks = List.copyOf(checks);
		decisions = List.copyOf(decisions);
		if (checks.size() != decisions.size()) {
			throw new IllegalArgumentException("Expected one decision per check");
		}
	}

	/** Creates the verdict of a store's decisions. */
	public Verdict(List<RateLimitCheck> checks, List<Decision> decisions) {
		this(checks, decisions, false);
	}

	/**
	 * Returns the verdict of this verdict's checks followed by another's, for a request decided in several calls
	 * (before and after authentication, then {@code @RateLimited} methods).
	 * @param later the verdict of the later call
	 * @return the merged verdict: allowed when both are, the store unavailable when it was for either
	 */
	public Verdict merge(Verdict later) {
		List<RateLimitCheck> mergedChecks = new ArrayList<>(this.checks);
		mergedChecks.addAll(later.checks);
		List<Decision> mergedDecisions = new ArrayList<>(this.decisions);
		mergedDecisions.addAll(later.decisions);
		return new Verdict(mergedChecks, mergedDecisions, this.storeUnavailable || later.storeUnavailable);
	}

	/** Returns whether the request is admitted: every enforced check allows it. */
	public boolean allowed() {
		// loops rather than streams here and below: these run on every request
		for (int i = 0; i < this.checks.size(); i++) {
			if (!this.checks.get(i).shadow() && !this.decisions.get(i).allowed()) {
				return false;
			}
		}
		return true;
	}

	/** Returns the enforced checks that denied the request, as indexes. */
	public List<Integer> deniedIndexes() {
		return IntStream.range(0, this.checks.size())
			.filter((i) -> this.checks.get(i).enforced() && !this.decisions.get(i).allowed())
			.boxed()
			.toList();
	}

	/**
	 * Returns the index of the most restrictive enforced check: the fewest remaining, on ties the later reset. Of a
	 * denied verdict, only the checks that denied are candidates, so that the check described is one whose wait the
	 * verdict's {@link #retryAfter()} covers.
	 */
	public Optional<Integer> mostRestrictiveIndex() {
		boolean denied = !allowed();
		int best = -1;
		for (int i = 0; i < this.checks.size(); i++) {
			Decision decision = this.decisions.get(i);
			if (this.checks.get(i).enforced() && (!denied || !decision.allowed())
					&& (best < 0 || moreRestrictive(decision, this.decisions.get(best)))) {
				best = i;
			}
		}
		return (best < 0) ? Optional.empty() : Optional.of(best);
	}

	private static boolean moreRestrictive(Decision candidate, Decision best) {
		if (candidate.remaining() != best.remaining()) {
			return candidate.remaining() < best.remaining();
		}
		return candidate.resetAfter().compareTo(best.resetAfter()) > 0;
	}

	/**
	 * Returns the leases this request holds (under its concurrency checks), each once: release them with
	 * {@link RateLimiter#release} when the request ends, however it ends. Empty when the request holds none, as a
	 * denied request normally does (a Redis Cluster refund that failed leaves the leases it could not release here).
	 */
	public List<Lease> leases() {
		List<Lease> leases = null;
		for (Decision decision : this.decisions) {
			Lease lease = decision.lease();
			if (lease != null) {
				if (leases == null) {
					leases = new ArrayList<>(1);
				}
				if (!leases.contains(lease)) {
					leases.add(lease);
				}
			}
		}
		return (leases != null) ? List.copyOf(leases) : List.of();
	}

	/**
	 * Returns how a denial of this verdict is answered: {@link DenialStatus#SERVICE_UNAVAILABLE} when the store is
	 * unavailable and a rule fails closed, or when every enforced check that denied says so (e.g. a {@code global}
	 * concurrency cap); {@link DenialStatus#TOO_MANY_REQUESTS} as soon as one denying check says 429, since the client
	 * can act on that one by slowing down, and for an allowed verdict.
	 */
	public DenialStatus denialStatus() {
		if (this.storeUnavailable) {
			return DenialStatus.SERVICE_UNAVAILABLE;
		}
		boolean denied = false;
		for (int i = 0; i < this.checks.size(); i++) {
			RateLimitCheck check = this.checks.get(i);
			if (check.enforced() && !this.decisions.get(i).allowed()) {
				if (check.status() == DenialStatus.TOO_MANY_REQUESTS) {
					return DenialStatus.TOO_MANY_REQUESTS;
				}
				denied = true;
			}
		}
		return denied ? DenialStatus.SERVICE_UNAVAILABLE : DenialStatus.TOO_MANY_REQUESTS;
	}

	/**
	 * Returns what this admitted request consumed: one {@link Consumption} per check of a rate policy (not
	 * concurrency, whose leases are released, nor distinct, whose values are not refunded: a value may have been
	 * counted before, or presented again meanwhile) that consumed units in a store, in the order of the checks. Empty for a denied request, which
	 * consumed nothing; a check decided by no store (a rule failing open while the store is unavailable) consumed
	 * nothing either.
	 */
	public List<Consumption> consumptions() {
		if (!allowed()) {
			return List.of();
		}
		List<Consumption> consumptions = new ArrayList<>(this.checks.size());
		for (int i = 0; i < this.checks.size(); i++) {
			RateLimitCheck check = this.checks.get(i);
			Decision decision = this.decisions.get(i);
			if (check.cost() > 0 && decision.allowed() && decision.decidedAt() != null
					&& check.policy().algorithm() != Algorithm.CONCURRENCY
					&& check.policy().algorithm() != Algorithm.DISTINCT) {
				consumptions.add(new Consumption(check.policy(), check.subject(), check.cost(), decision.decidedAt()));
			}
		}
		return List.copyOf(consumptions);
	}

	/**
	 * Returns how long an admitted request must wait for the slot it reserved before it proceeds: the longest
	 * {@link Decision#delay()}; zero when it proceeds at once or is denied.
	 */
	public Duration delay() {
		Duration delay = Duration.ZERO;
		if (allowed()) {
			for (Decision decision : this.decisions) {
				if (decision.delay().compareTo(delay) > 0) {
					delay = decision.delay();
				}
			}
		}
		return delay;
	}

	/** Returns the longest wait among the enforced checks that denied, or zero when allowed. */
	public Duration retryAfter() {
		return deniedIndexes().stream()
			.map((i) -> this.decisions.get(i).retryAfter())
			.max(Comparator.naturalOrder())
			.orElse(Duration.ZERO);
	}

}
