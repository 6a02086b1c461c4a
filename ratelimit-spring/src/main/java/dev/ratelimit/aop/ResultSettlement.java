package dev.ratelimit.aop;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.SettleSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;

/**
 * Settles the cost of one admitted {@code @RateLimited} call from its value ({@code settle}, SpEL over
 * {@code #result}): each value the call gives is {@link #report reported} (the return value, a future's or a
 * {@code Mono}'s value, each element of a {@code Flux}), the last one that gives a number wins, and the call is
 * settled once when it {@link #end ends}. A call that reported nothing keeps its estimate.
 */
final class ResultSettlement {

	private static final Log logger = LogFactory.getLog(ResultSettlement.class);

	private final CostSettlement settlement;

	private final List<Consumption> consumptions;

	private final List<Expression> expressions;

	private final Supplier<EvaluationContext> context;

	private final @Nullable Long[] units;

	private final AtomicBoolean ended = new AtomicBoolean();

	private ResultSettlement(CostSettlement settlement, List<Consumption> consumptions, List<Expression> expressions,
			Supplier<EvaluationContext> context) {
		this.settlement = settlement;
		this.consumptions = consumptions;
		this.expressions = expressions;
		this.context = context;
		this.units = new Long[consumptions.size()];
	}

	/**
	 * Returns the settlement of a call, or {@code null} when none of its admitted checks settles from its value.
	 * @param settlement settles with the limiter
	 * @param limits the call's annotations, one per check of the verdict, in order
	 * @param verdict the verdict that admitted the call
	 * @param context makes the evaluation context of the call (its arguments and beans)
	 * @return the settlement, or {@code null}
	 */
	static @Nullable ResultSettlement of(@Nullable CostSettlement settlement, AnnotatedLimits limits, Verdict verdict,
			Supplier<EvaluationContext> context) {
		if (settlement == null || !limits.settles() || !verdict.allowed()) {
			return null;
		}
		List<Consumption> consumptions = new ArrayList<>();
		List<Expression> expressions = new ArrayList<>();
		for (int i = 0; i < limits.limits().size() && i < verdict.checks().size(); i++) {
			Expression expression = limits.limits().get(i).settle();
			RateLimitCheck check = verdict.checks().get(i);
			Decision decision = verdict.decisions().get(i);
			// as Verdict.consumptions(): what a store counted for a rate policy
			if (expression != null && check.cost() > 0 && decision.allowed() && decision.decidedAt() != null
					&& check.policy().algorithm() != Algorithm.CONCURRENCY
					&& check.policy().algorithm() != Algorithm.DISTINCT && Settlement.supports(check.policy())) {
				consumptions.add(new Consumption(check.policy(), check.subject(), check.cost(), decision.decidedAt()));
				expressions.add(expression);
			}
		}
		return consumptions.isEmpty() ? null : new ResultSettlement(settlement, consumptions, expressions, context);
	}

	/**
	 * Reports a value of the call: each expression that gives a number for it replaces what an earlier value gave.
	 * @param value the value
	 */
	void report(@Nullable Object value) {
		EvaluationContext context = this.context.get();
		context.setVariable("result", value);
		for (int i = 0; i < this.expressions.size(); i++) {
			Expression expression = this.expressions.get(i);
			try {
				Long units = SettleSource.units(expression.getValue(context));
				if (units != null) {
					synchronized (this) {
						this.units[i] = units;
					}
				}
			}
			catch (RuntimeException ex) {
				logger.warn("@RateLimited settle expression '" + expression.getExpressionString() + "' failed ("
						+ ex.getMessage() + "); the call keeps its estimate unless a later value settles it");
			}
		}
	}

	/**
	 * Ends the call: settles what its values reported, once.
	 * @param nonBlocking whether the caller must not block (the settlement is sent and not waited for)
	 */
	void end(boolean nonBlocking) {
		if (!this.ended.compareAndSet(false, true)) {
			return;
		}
		List<Settlement> settlements = new ArrayList<>(this.consumptions.size());
		synchronized (this) {
			for (int i = 0; i < this.consumptions.size(); i++) {
				Long units = this.units[i];
				if (units != null && units != this.consumptions.get(i).cost()) {
					settlements.add(new Settlement(this.consumptions.get(i), units));
				}
			}
		}
		this.settlement.settle(settlements, nonBlocking);
	}

}
