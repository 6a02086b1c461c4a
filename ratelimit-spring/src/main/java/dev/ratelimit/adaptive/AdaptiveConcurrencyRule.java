package dev.ratelimit.adaptive;

import java.util.Objects;

import dev.ratelimit.DenialStatus;
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
 * @param status how its denials are answered: 503 unless the rule's {@code status} says 429
 */
public record AdaptiveConcurrencyRule(String name, RequestMatch match, AdaptiveSettings settings, RuleMode mode,
		RulePhase phase, DenialStatus status) {

	public AdaptiveConcurrencyRule {
		Objects.requireNonNull(status, "status");
		if (phase == RulePhase.AUTO) {
			throw new IllegalArgumentException("A compiled rule's phase is before or after authentication, not auto");
		}
	}

	/** Creates a rule whose denials are answered with {@link DenialStatus#SERVICE_UNAVAILABLE}. */
	public AdaptiveConcurrencyRule(String name, RequestMatch match, AdaptiveSettings settings, RuleMode mode,
			RulePhase phase) {
		this(name, match, settings, mode, phase, DenialStatus.SERVICE_UNAVAILABLE);
	}

}
