package dev.ratelimit.ai;

import dev.ratelimit.RateLimitCheck;
import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.metadata.Usage;
import org.springframework.ai.support.UsageCalculator;

/**
 * What a model's reported {@link Usage} counts against a token budget: its {@link Usage#getTotalTokens() total}, or
 * its prompt and completion tokens weighted (e.g. a completion token costing 4 prompt tokens, as providers price
 * them), rounded up.
 *
 * @param promptWeight what a prompt token counts, or {@code null} to count the total
 * @param completionWeight what a completion token counts, or {@code null} to count the total
 */
public record UsageTokens(@Nullable Double promptWeight, @Nullable Double completionWeight) {

	/** Counts {@link Usage#getTotalTokens()}. */
	public static final UsageTokens TOTAL = new UsageTokens(null, null);

	public UsageTokens {
		if ((promptWeight != null && !(promptWeight >= 0)) || (completionWeight != null && !(completionWeight >= 0))) {
			throw new IllegalArgumentException("weights must not be negative");
		}
	}

	/**
	 * Returns what a reported usage counts.
	 * @param usage the usage a response reported, or {@code null}
	 * @return the tokens (at most {@link RateLimitCheck#MAX_COST}), or -1 when the usage reports none (no usage, or a
	 * total of 0: the model did not report it)
	 */
	public long count(@Nullable Usage usage) {
		if (UsageCalculator.isEmpty(usage)) {
			return -1;
		}
		if (this.promptWeight == null && this.completionWeight == null) {
			return Math.min(usage.getTotalTokens(), RateLimitCheck.MAX_COST);
		}
		double prompt = tokens(usage.getPromptTokens()) * ((this.promptWeight != null) ? this.promptWeight : 1.0);
		double completion = tokens(usage.getCompletionTokens())
				* ((this.completionWeight != null) ? this.completionWeight : 1.0);
		// a weight such as 0.1 is not exact in binary: 150 * 0.1 must count 15, not 16
		return Math.min((long) Math.ceil(prompt + completion - 1e-9), RateLimitCheck.MAX_COST);
	}

	private static long tokens(@Nullable Integer tokens) {
		return (tokens != null) ? tokens : 0;
	}

}
