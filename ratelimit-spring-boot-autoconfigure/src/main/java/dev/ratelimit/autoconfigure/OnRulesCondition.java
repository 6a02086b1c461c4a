package dev.ratelimit.autoconfigure;

import java.util.Map;
import java.util.function.Predicate;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a rule of {@code ratelimit.rules} has a setting (read from the environment, before the rules are
 * compiled; a rule that gains it later, by a refresh of the rules, takes effect at the next start).
 */
abstract class OnRulesCondition extends SpringBootCondition {

	private final Predicate<RateLimitProperties.Rule> setting;

	private final String description;

	/**
	 * @param setting whether a rule has the setting
	 * @param description the setting, as written in yml (for the condition report)
	 */
	OnRulesCondition(Predicate<RateLimitProperties.Rule> setting, String description) {
		this.setting = setting;
		this.description = description;
	}

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, RateLimitProperties.Rule> rules = Binder.get(context.getEnvironment())
			.bind("ratelimit.rules", Bindable.mapOf(String.class, RateLimitProperties.Rule.class))
			.orElse(Map.of());
		for (Map.Entry<String, RateLimitProperties.Rule> rule : rules.entrySet()) {
			if (this.setting.test(rule.getValue())) {
				return ConditionOutcome.match("rule '" + rule.getKey() + "' has " + this.description);
			}
		}
		return ConditionOutcome.noMatch("no rule has " + this.description);
	}

}
