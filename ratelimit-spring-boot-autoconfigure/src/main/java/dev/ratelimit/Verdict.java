package dev.ratelimit;

import java.time.Duration;
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
 */
public record Verdict(List<RateLimitCheck> checks, List<Decision> decisions) {

	public Verdict {
		checks = List.copyOf(checks);
		decisions = List.copyOf(decisions);
		if (checks.size() != decisions.size()) {
			throw new IllegalArgumentException("Expected one decision per check");
		}
	}

	/** Returns whether the request is admitted: every enforced check allows it. */
	public boolean allowed() {
		return IntStream.range(0, this.checks.size())
			.allMatch((i) -> this.checks.get(i).shadow() || this.decisions.get(i).allowed());
	}

	/** Returns the enforced checks that denied the request, as indexes. */
	public List<Integer> deniedIndexes() {
		return IntStream.range(0, this.checks.size())
			.filter((i) -> this.checks.get(i).enforced() && !this.decisions.get(i).allowed())
			.boxed()
			.toList();
	}

	/**
	 * Returns the index of the most restrictive enforced check: the fewest remaining, on ties the later reset.
	 */
	public Optional<Integer> mostRestrictiveIndex() {
		Comparator<Integer> order = Comparator.<Integer>comparingLong((i) -> this.decisions.get(i).remaining())
			.thenComparing((i) -> this.decisions.get(i).resetAfter(), Comparator.reverseOrder());
		return IntStream.range(0, this.checks.size())
			.filter((i) -> this.checks.get(i).enforced())
			.boxed()
			.min(order);
	}

	/** Returns the longest wait among the enforced checks that denied, or zero when allowed. */
	public Duration retryAfter() {
		return deniedIndexes().stream()
			.map((i) -> this.decisions.get(i).retryAfter())
			.max(Comparator.naturalOrder())
			.orElse(Duration.ZERO);
	}

}
