package dev.ratelimit.autoconfigure;

/**
 * Matches when a rule has {@code sync: local}: only then does the limiter decide from local views.
 */
class OnLocalSyncRulesCondition extends OnRulesCondition {

	OnLocalSyncRulesCondition() {
		super((rule) -> rule.getSync() == RateLimitProperties.SyncMode.LOCAL, "sync: local");
	}

}
