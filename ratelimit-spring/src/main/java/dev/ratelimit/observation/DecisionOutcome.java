package dev.ratelimit.observation;

import dev.ratelimit.Verdict;
import dev.ratelimit.store.StoreState;

/** The outcome of a rate limit decision, as an observation tags it. */
public enum DecisionOutcome {

	/** Admitted at once. */
	ALLOWED("allowed"),

	/** Denied by an enforced rule. */
	DENIED("denied"),

	/** Admitted with a reserved slot later: the request waits for it ({@code max-wait}). */
	WAITED("waited"),

	/** Admitted, but a rule in shadow mode would have denied it. */
	SHADOW_DENIED("shadow-denied"),

	/**
	 * Decided without the shared store: by the rules' {@code on-store-failure} modes while it is unavailable (its
	 * circuit breaker is open), including a denial because a rule fails closed.
	 */
	FALLBACK("fallback"),

	/** The decision failed; the request was admitted unchecked. */
	ERROR("error");

	private final String value;

	DecisionOutcome(String value) {
		this.value = value;
	}

	/** Returns the tag's value, e.g. {@code shadow-denied}. */
	public String value() {
		return this.value;
	}

	/**
	 * Returns the outcome of a verdict.
	 * @param verdict the verdict
	 * @param state who decided
	 * @return the outcome
	 */
	public static DecisionOutcome of(Verdict verdict, StoreState state) {
		if (verdict.storeUnavailable() || state == StoreState.FALLBACK) {
			return FALLBACK;
		}
		if (!verdict.allowed()) {
			return DENIED;
		}
		if (!verdict.delay().isZero()) {
			return WAITED;
		}
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (verdict.checks().get(i).shadow() && !verdict.decisions().get(i).allowed()) {
				return SHADOW_DENIED;
			}
		}
		return ALLOWED;
	}

}
