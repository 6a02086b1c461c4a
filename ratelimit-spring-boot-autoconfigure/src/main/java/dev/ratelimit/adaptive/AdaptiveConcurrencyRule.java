package dev.ratelimit.adaptive;

import dev.ratelimit.rule.RequestMatch;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RulePhase;

/**
 * An {@code adaptive-concurrency} rule compiled from configuration: which requests share one adaptive limit of this
 * instance, and how the limit adapts.
 *
 * @param name the rule name
 * @param match which requests it applies to
 * @param settings how the limit adapts
 * @param mode whether it denies ({@code enforce}) or only observes ({@code shadow})
 * @param phase where the filter applies it: before or after authentication, never {@link RulePhase#AUTO}
 */
public record AdaptiveConcurrencyRule(String name, RequestMatch match, AdaptiveSettings settings, RuleMode mode,
		RulePhase phase) {

	public AdaptiveConcurrencyRule {
		if (phase == RulePhase.AUTO) {
			throw new IllegalArgumentException("A compiled rule's phase is before or after authentication, not auto");
		}
	}

}
