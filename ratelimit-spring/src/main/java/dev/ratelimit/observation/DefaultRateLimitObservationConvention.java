package dev.ratelimit.observation;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.Verdict;
import dev.ratelimit.observation.RateLimitObservationDocumentation.HighCardinalityKeyNames;
import dev.ratelimit.observation.RateLimitObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default names and tags of rate limit decisions: {@code ratelimit.decision}, tagged with the rules, the outcome,
 * the rule that denied, the algorithms, the store and its state, the caller and the error. Never the subject.
 */
public class DefaultRateLimitObservationConvention implements RateLimitObservationConvention {

	/** The name of decision observations, their timer and their spans. */
	public static final String NAME = "ratelimit.decision";

	private static final String NONE = "none";

	@Override
	public String getName() {
		return NAME;
	}

	@Override
	public String getContextualName(RateLimitObservationContext context) {
		return "ratelimit decision";
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
		DecisionOutcome outcome = context.getOutcome();
		Verdict verdict = context.getVerdict();
		return KeyValues.of(rules(context), LowCardinalityKeyNames.OUTCOME.withValue((outcome != null) ? outcome.value() : NONE),
				deniedBy(verdict), algorithm(context), LowCardinalityKeyNames.STORE.withValue(context.getStore()),
				LowCardinalityKeyNames.STORE_STATE.withValue(context.getStoreState().name().toLowerCase(Locale.ROOT)),
				caller(context), error(context));
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(RateLimitObservationContext context) {
		return delay(context);
	}

	/** The names of the rules decided, in the order of their checks, comma-separated. */
	protected KeyValue rules(RateLimitObservationContext context) {
		List<String> names = new ArrayList<>(context.getChecks().size());
		for (RateLimitCheck check : context.getChecks()) {
			if (!names.contains(check.policy().name())) {
				names.add(check.policy().name());
			}
		}
		return LowCardinalityKeyNames.RULES.withValue(names.isEmpty() ? NONE : String.join(",", names));
	}

	/** The algorithms of the rules decided, comma-separated in the order of their checks. */
	protected KeyValue algorithm(RateLimitObservationContext context) {
		List<String> algorithms = new ArrayList<>(2);
		for (RateLimitCheck check : context.getChecks()) {
			String algorithm = check.policy().algorithm().name().toLowerCase(Locale.ROOT).replace('_', '-');
			if (!algorithms.contains(algorithm)) {
				algorithms.add(algorithm);
			}
		}
		return LowCardinalityKeyNames.ALGORITHM.withValue(algorithms.isEmpty() ? NONE : String.join(",", algorithms));
	}

	/** Who asked. */
	protected KeyValue caller(RateLimitObservationContext context) {
		return LowCardinalityKeyNames.CALLER.withValue(context.getCaller());
	}

	/** How long the request waits for its slot, when it does. */
	protected KeyValues delay(RateLimitObservationContext context) {
		long millis = context.getDelay().toMillis();
		return (millis > 0) ? KeyValues.of(HighCardinalityKeyNames.DELAY.withValue(Long.toString(millis)))
				: KeyValues.empty();
	}

	private static KeyValue deniedBy(Verdict verdict) {
		if (verdict == null || verdict.allowed()) {
			return LowCardinalityKeyNames.DENIED_BY.withValue(NONE);
		}
		return LowCardinalityKeyNames.DENIED_BY.withValue(verdict.mostRestrictiveIndex()
			.map((i) -> verdict.checks().get(i).policy().name())
			.orElse(NONE));
	}

	private static KeyValue error(RateLimitObservationContext context) {
		Throwable error = context.getError();
		return LowCardinalityKeyNames.ERROR.withValue((error != null) ? error.getClass().getSimpleName() : NONE);
	}

}
