package dev.ratelimit.rule;

import org.jspecify.annotations.Nullable;

/**
 * What a request reports when it ends, for settling the cost of its rules ({@link CostSettlement}): the units its
 * handler reported from code, and its response, which a rule's {@code settle} source reads. A web adapter makes one
 * per request ({@code dev.ratelimit.web.RateLimitContext}); thread-safe.
 */
public interface SettleReport {

	/**
	 * Returns the units the request reported from code for a rule: the last value reported for that rule or for every
	 * rule of the request, whichever was reported last.
	 * @param rule the rule's name
	 * @return the units, or {@code null} when none was reported
	 */
	@Nullable Long reported(String rule);

	/**
	 * Returns the response, as it is when the request ends.
	 * @return the response, {@link SettleResponse#NONE} when there is none
	 */
	SettleResponse response();

}
