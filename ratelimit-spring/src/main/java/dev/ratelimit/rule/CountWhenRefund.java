package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.Consumption;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Gives back the units of a rule with {@code count-when} when the request or call it admitted ends with an outcome
 * that the rule does not count (registered by the auto-configuration as an {@link AdmissionListener}). The units are
 * consumed before the request runs, in the same atomic call as every other rule's, so parallel requests can never
 * exceed the limit, and a subject already at its limit is denied before it runs; only the refund waits for the end.
 * <p>
 * Each consumption is judged by its rule's {@link CountWhen} as the rule was when the request was admitted, on the
 * {@link Completion}'s status and failure: a request that a later rule denied never ran and is refunded, one whose
 * client went away counts. A refund that fails (the store is unreachable) is logged; the units stay consumed.
 */
public final class CountWhenRefund implements AdmissionListener {

	private static final Log logger = LogFactory.getLog(CountWhenRefund.class);

	private final RateLimiter limiter;

	private final RateLimitRules rules;

	/**
	 * @param limiter the limiter that consumed, which refunds
	 * @param rules the rules, whose {@code count-when} says what counts
	 */
	public CountWhenRefund(RateLimiter limiter, RateLimitRules rules) {
		this.limiter = limiter;
		this.rules = rules;
	}

	/** Returns whether the verdict consumed units under a rule with {@code count-when}. */
	@Override
	public boolean wants(Verdict verdict) {
		// on every admitted request: look the rules up before making any receipt
		for (RateLimitCheck check : verdict.checks()) {
			if (check.cost() > 0 && countWhen(check.policy().name()) != null) {
				return !verdict.consumptions().isEmpty();
			}
		}
		return false;
	}

	@Override
	public void onAdmitted(Verdict verdict, Completion completion) {
		List<Consumption> consumptions = new ArrayList<>();
		List<CountWhen> conditions = new ArrayList<>();
		for (Consumption consumption : verdict.consumptions()) {
			CountWhen countWhen = countWhen(consumption.policy().name());
			if (countWhen != null) {
				consumptions.add(consumption);
				conditions.add(countWhen);
			}
		}
		if (!consumptions.isEmpty()) {
			completion.onEnd((outcome) -> refundUncounted(consumptions, conditions, outcome, completion));
		}
	}

	private @Nullable CountWhen countWhen(String rule) {
		return this.rules.get(rule).map(RateLimitRule::countWhen).orElse(null);
	}

	private void refundUncounted(List<Consumption> consumptions, List<CountWhen> conditions, Outcome outcome,
			Completion completion) {
		List<Consumption> refunds = new ArrayList<>(consumptions.size());
		for (int i = 0; i < consumptions.size(); i++) {
			if (!conditions.get(i).counts(outcome, completion.status(), completion.failure())) {
				refunds.add(consumptions.get(i));
			}
		}
		if (refunds.isEmpty()) {
			return;
		}
		AfterEnd.call(completion.isNonBlocking(), () -> this.limiter.refundAsync(refunds),
				() -> this.limiter.refund(refunds), (ex) -> notRefunded(refunds, ex));
	}

	private static void notRefunded(List<Consumption> refunds, Throwable ex) {
		logger.warn("Could not give back " + refunds.size() + " uncounted consumption(s) (count-when); they stay"
				+ " consumed", ex);
	}

}
