package dev.ratelimit.rule;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.Consumption;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Settles the cost of requests whose rules know it only after the response ({@code rules.<name>.settle}, or a
 * {@code cost} of their own settled from code): the request reserved its estimate (the rule's {@code cost}) in the
 * same atomic call as every other rule's; when it ends, the units it reported are settled with
 * {@link RateLimiter#settle}, which charges the difference (the quota may go into debt) or gives back what it did not
 * use. The web adapters follow each admitted request with the {@link Completion} that {@code count-when} refunds
 * through, so a request is settled once, on whatever thread it ends (a stream's end, its client's disconnection).
 * <p>
 * The units of a rule are, in this order: the last value the handler reported from code ({@link SettleReport#reported});
 * else what the rule's {@link SettleSource} reads from the response. A request that reports nothing (an exception, no
 * header, no call) keeps its estimate; one that a later rule denied never ran and is not settled. A settlement that
 * fails (the store is unreachable) is logged; the estimate stands.
 */
public final class CostSettlement {

	private static final Log logger = LogFactory.getLog(CostSettlement.class);

	private final RateLimiter limiter;

	private final RateLimitRules rules;

	/**
	 * @param limiter the limiter that reserved the estimates, which settles them
	 * @param rules the rules, whose {@code settle} says where the cost is found
	 */
	public CostSettlement(RateLimiter limiter, RateLimitRules rules) {
		this.limiter = limiter;
		this.rules = rules;
	}

	/**
	 * Returns whether an admitted request consumed units under a rule that is settled after the response.
	 * @param verdict the verdict that admitted it
	 * @return whether {@link #follow} should be called
	 */
	public boolean wants(Verdict verdict) {
		// on every admitted request: look the rules up before making anything
		for (RateLimitCheck check : verdict.checks()) {
			if (check.cost() > 0 && source(check.policy().name()) != null) {
				return !verdict.consumptions().isEmpty();
			}
		}
		return false;
	}

	/**
	 * Follows an admitted request to its end, and settles then what its rules consumed.
	 * @param verdict the verdict that admitted it
	 * @param completion ends with the request
	 * @param report what the request reports when it ends
	 */
	public void follow(Verdict verdict, Completion completion, SettleReport report) {
		List<Consumption> consumptions = new ArrayList<>();
		List<SettleSource> sources = new ArrayList<>();
		for (Consumption consumption : verdict.consumptions()) {
			SettleSource source = source(consumption.policy().name());
			if (source != null && Settlement.supports(consumption.policy())) {
				consumptions.add(consumption);
				sources.add(source);
			}
		}
		if (consumptions.isEmpty()) {
			return;
		}
		completion.onEnd((outcome) -> {
			if (outcome != Outcome.REJECTED) {
				settle(settlements(consumptions, sources, report), completion.isNonBlocking());
			}
		});
	}

	private static List<Settlement> settlements(List<Consumption> consumptions, List<SettleSource> sources,
			SettleReport report) {
		List<Settlement> settlements = new ArrayList<>(consumptions.size());
		SettleResponse response = null;
		for (int i = 0; i < consumptions.size(); i++) {
			Consumption consumption = consumptions.get(i);
			Long units = report.reported(consumption.policy().name());
			if (units == null && !sources.get(i).isCodeOnly()) {
				if (response == null) {
					response = report.response();
				}
				units = sources.get(i).read(response);
			}
			if (units != null && units != consumption.cost()) {
				settlements.add(new Settlement(consumption, units));
			}
		}
		return settlements;
	}

	/**
	 * Settles, logging a failure rather than throwing it (the estimates then stand).
	 * @param settlements the settlements
	 * @param nonBlocking whether the caller must not block: the settlement is sent and not waited for
	 */
	public void settle(List<Settlement> settlements, boolean nonBlocking) {
		if (settlements.isEmpty()) {
			return;
		}
		AfterEnd.call(nonBlocking, () -> this.limiter.settleAsync(settlements), () -> this.limiter.settle(settlements),
				(ex) -> notSettled(settlements, ex));
	}

	private @Nullable SettleSource source(String rule) {
		return this.rules.get(rule).map(RateLimitRule::settle).orElse(null);
	}

	private static void notSettled(List<Settlement> settlements, Throwable ex) {
		logger.warn("Could not settle the cost of " + settlements.size() + " consumption(s); their estimates stand",
				ex);
	}

}
