package dev.ratelimit.rule;

import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.store.RateLimitStore;
import org.jspecify.annotations.Nullable;

/**
 * Reads a subject's usage of a rule (used, limit, remaining, when it resets) without spending anything: the store
 * answers what a request of cost 0 would see, writing nothing. For showing customers their quota (e.g. a
 * {@code GET /api/usage}), and for the actuator.
 */
public class RateLimitUsage {

	private final RateLimitRules rules;

	private final RateLimitStore store;

	private final Clock clock;

	/**
	 * Creates a usage reader.
	 * @param rules the rules, by name
	 * @param store the store that holds them
	 * @param clock the clock of a calendar window's end when the store gives no time of its own (the in-memory store)
	 */
	public RateLimitUsage(RateLimitRules rules, RateLimitStore store, Clock clock) {
		this.rules = rules;
		this.store = store;
		this.clock = clock;
	}

	/**
	 * Returns a subject's usage of a rule at the rule's own limit.
	 * @param rule the rule's name
	 * @param subject the subject as the rule's key resolves it
	 * @return the usage, or empty for an unknown rule
	 * @throws dev.ratelimit.store.RateLimitStoreException when the store cannot be read (nothing to fall back on: a
	 * usage is what the store holds)
	 */
	public Optional<QuotaUsage> of(String rule, String subject) {
		return of(rule, subject, null);
	}

	/**
	 * Returns a subject's usage of a rule at a tier's limit (at its own limit when the subject has an exception of the
	 * rule, as its requests are).
	 * @param rule the rule's name
	 * @param subject the subject as the rule's key resolves it
	 * @param tier the subject's tier, or {@code null} (or an unknown tier) for the rule's own limit
	 * @return the usage, or empty for an unknown rule
	 */
	public Optional<QuotaUsage> of(String rule, String subject, @Nullable String tier) {
		return of(rule, subject, tier, null);
	}

	/**
	 * Returns a subject's usage of a rule at a tier's limit, for a calendar quota in the subject's own zone (the one
	 * its {@code zone-key} gives for the subject's requests): {@code resetsAt} is then the end of the subject's window.
	 * @param rule the rule's name
	 * @param subject the subject as the rule's key resolves it
	 * @param tier the subject's tier, or {@code null} (or an unknown tier) for the rule's own limit
	 * @param zone the subject's zone, or {@code null} for the rule's {@code zone}; ignored by a rule without a calendar
	 * @return the usage, or empty for an unknown rule
	 */
	public Optional<QuotaUsage> of(String rule, String subject, @Nullable String tier, @Nullable ZoneId zone) {
		return this.rules.get(rule).map((found) -> {
			// a subject's exception is its policy, whatever its tier (as for a request)
			RateLimitPolicy exception = found.exceptions().get(subject);
			RateLimitPolicy tierPolicy = (exception == null && tier != null) ? found.tiers().get(tier) : null;
			RateLimitPolicy policy = (exception != null) ? exception : (tierPolicy != null) ? tierPolicy : found.policy();
			return usage(RateLimitRule.inZone(policy, zone), subject, (tierPolicy != null) ? tier : null);
		});
	}

	/**
	 * Returns a subject's usage under a policy.
	 * @param policy the policy
	 * @param subject the subject
	 * @param tier the tier the policy is of, if any (reported as is)
	 * @return the usage
	 */
	public QuotaUsage usage(RateLimitPolicy policy, String subject, @Nullable String tier) {
		// a distinct rule presents no value here, a concurrency rule acquires nothing: cost 0 inspects both
		Decision now = this.store.peek(List.of(new RateLimitCheck(policy, subject, 0, false))).get(0);
		return QuotaUsage.of(policy, subject, tier, now, this.clock.instant());
	}

}
