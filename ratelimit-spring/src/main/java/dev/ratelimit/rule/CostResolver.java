package dev.ratelimit.rule;

import java.math.BigDecimal;
import java.math.RoundingMode;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitRequest;
import org.jspecify.annotations.Nullable;

/**
 * Resolves how many units a request costs under a rule.
 */
@FunctionalInterface
public interface CostResolver {

	/**
	 * @param request the request
	 * @return the cost, at least 1
	 */
	long resolve(RateLimitRequest request);

	/** A fixed cost. */
	static CostResolver fixed(long cost) {
		return (request) -> cost;
	}

	/**
	 * Converts what a cost expression yields into a cost: a number or numeric string is rounded up and capped to
	 * {@link RateLimitCheck#MAX_COST} (so an absurd value is denied, never wrapped around); anything that is not a
	 * number, or less than 1, counts as 1, so client input can never make a request free or break the limiter.
	 */
	static long costOf(@Nullable Object value) {
		if (value == null) {
			return 1;
		}
		BigDecimal number;
		try {
			number = (value instanceof BigDecimal decimal) ? decimal : new BigDecimal(value.toString().trim());
		}
		catch (NumberFormatException ex) {
			return 1;
		}
		if (number.compareTo(BigDecimal.ONE) < 0) {
			return 1;
		}
		if (number.compareTo(BigDecimal.valueOf(RateLimitCheck.MAX_COST)) >= 0) {
			return RateLimitCheck.MAX_COST;
		}
		return number.setScale(0, RoundingMode.CEILING).longValueExact();
	}

}
