package dev.ratelimit.autoconfigure;

import java.util.Locale;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Matches unless {@code ratelimit.store} is {@code local}.
 */
class OnSharedStoreCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String store = context.getEnvironment().getProperty("ratelimit.store", "auto").trim().toLowerCase(Locale.ROOT);
		if (store.equals("local")) {
			return ConditionOutcome.noMatch("ratelimit.store is local");
		}
		return ConditionOutcome.match("ratelimit.store is " + store);
	}

}
