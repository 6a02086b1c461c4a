package dev.ratelimit.autoconfigure;

import java.util.Map;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches when a rule has {@code sync: local}: only then does the limiter decide from local views (a rule switched to
 * local later, by a refresh of the rules, takes effect at the next start).
 */
class OnLocalSyncRulesCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		Map<String, RateLimitProperties.Rule> rules = Binder.get(context.getEnvironment())
			.bind("ratelimit.rules", Bindable.mapOf(String.class, RateLimitProperties.Rule.class))
			.orElse(Map.of());
		for (Map.Entry<String, RateLimitProperties.Rule> rule : rules.entrySet()) {
			if (rule.getValue().getSync() == RateLimitProperties.SyncMode.LOCAL) {
				return ConditionOutcome.match("rule '" + rule.getKey() + "' has sync: local");
			}
		}
		return ConditionOutcome.noMatch("no rule has sync: local");
	}

}
