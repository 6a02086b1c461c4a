package dev.ratelimit.rule;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

/**
 * A runtime change of a rule's values, made by an operator and shared by every instance. Values left {@code null}
 * keep the configured ones. Tier limits and the limits of per-subject exceptions are not overridden; they follow
 * the overridden period.
 *
 * @param limit the new limit, or {@code null}
 * @param period the new period, or {@code null}
 * @param burst the new burst, or {@code null}
 * @param mode the new mode, or {@code null}
 */
public record RuleOverride(@Nullable Long limit, @Nullable Duration period, @Nullable Long burst,
		@Nullable RuleMode mode) {

	/**
	 * Applies this override to a configured rule.
	 * @throws IllegalArgumentException when the result is not a valid policy, with the reason
	 */
	public RateLimitRule applyTo(RateLimitRule rule) {
		RateLimitPolicy configured = rule.policy();
		RateLimitPolicy policy = new RateLimitPolicy(configured.name(), configured.algorithm(),
				(this.limit != null) ? this.limit : configured.limit(),
				(this.period != null) ? this.period : configured.period(),
				(this.burst != null) ? this.burst : configured.burst(), configured.spreadWindows(),
				configured.calendar(), configured.warmUp(), configured.coldFactor());
		Map<String, RateLimitPolicy> tiers = new LinkedHashMap<>();
		rule.tiers().forEach((tier, tierPolicy) -> tiers.put(tier, new RateLimitPolicy(tierPolicy.name(),
				tierPolicy.algorithm(), tierPolicy.limit(), policy.period(), policy.burst(), tierPolicy.spreadWindows(),
				tierPolicy.calendar(), tierPolicy.warmUp(), tierPolicy.coldFactor())));
		Map<String, RateLimitPolicy> exceptions = new LinkedHashMap<>();
		rule.exceptions().forEach((subject, exception) -> exceptions.put(subject,
				RateLimitRule.exceptionPolicy(policy, exception.limit())));
		return rule.toBuilder()
			.policy(policy)
			.tiers(tiers, rule.tierKey())
			.exceptions(exceptions)
			.mode((this.mode != null) ? this.mode : rule.mode())
			.build();
	}

	/** Encodes this override as {@code limit=..;period=..;burst=..;mode=..} (empty values omitted). */
	public String encode() {
		StringBuilder encoded = new StringBuilder();
		append(encoded, "limit", this.limit);
		append(encoded, "period", this.period);
		append(encoded, "burst", this.burst);
		append(encoded, "mode", (this.mode != null) ? this.mode.name().toLowerCase(Locale.ROOT) : null);
		return encoded.toString();
	}

	/**
	 * Decodes {@link #encode()}'s format.
	 * @throws IllegalArgumentException when it is malformed
	 */
	public static RuleOverride decode(String encoded) {
		Long limit = null;
		Duration period = null;
		Long burst = null;
		RuleMode mode = null;
		for (String part : encoded.split(";")) {
			if (part.isBlank()) {
				continue;
			}
			int equals = part.indexOf('=');
			if (equals < 0) {
				throw new IllegalArgumentException("malformed override part '" + part + "'");
			}
			String name = part.substring(0, equals);
			String value = part.substring(equals + 1);
			switch (name) {
				case "limit" -> limit = Long.parseLong(value);
				case "period" -> period = Duration.parse(value);
				case "burst" -> burst = Long.parseLong(value);
				case "mode" -> mode = RuleMode.valueOf(value.toUpperCase(Locale.ROOT));
				default -> throw new IllegalArgumentException("unknown override field '" + name + "'");
			}
		}
		return new RuleOverride(limit, period, burst, mode);
	}

	private static void append(StringBuilder encoded, String name, @Nullable Object value) {
		if (value != null) {
			encoded.append(encoded.isEmpty() ? "" : ";").append(name).append('=').append(value);
		}
	}

}
