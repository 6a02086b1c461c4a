package dev.ratelimit.rule;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

/**
 * A subject's usage of one rule, read without spending anything.
 *
 * @param rule the rule
 * @param subject the subject (what the rule's key resolves to, e.g. an API key)
 * @param tier the tier whose limit applies, or {@code null} for the rule's own limit
 * @param limit units per period (for a calendar quota: per day, week or month)
 * @param used units counted now ({@code limit - remaining})
 * @param remaining units still available now
 * @param resetsAt when the count starts again from zero, on the store's clock: for a calendar quota the end of its
 * current window (even when nothing is used yet), for other rules when what is used will have come back;
 * {@code null} when nothing is used and the rule has no calendar
 */
public record QuotaUsage(String rule, String subject, @Nullable String tier, long limit, long used, long remaining,
		@Nullable Instant resetsAt) {

	/**
	 * Reads the usage from what a store answered for a check of cost 0.
	 * @param policy the policy inspected
	 * @param subject the subject
	 * @param tier the tier the policy is of, if any
	 * @param inspected the store's answer
	 * @param fallbackNow the time to count from when the store gave none of its own
	 * @return the usage
	 */
	public static QuotaUsage of(RateLimitPolicy policy, String subject, @Nullable String tier, Decision inspected,
			Instant fallbackNow) {
		long used = inspected.limit() - inspected.remaining();
		Instant decidedAt = (inspected.decidedAt() != null) ? inspected.decidedAt() : fallbackNow;
		Instant resetsAt = null;
		CalendarPeriod calendar = policy.calendar();
		if (used > 0) {
			resetsAt = decidedAt.plus(inspected.resetAfter());
		}
		else if (calendar != null) {
			long now = ChronoUnit.MICROS.between(Instant.EPOCH, decidedAt);
			resetsAt = Instant.EPOCH.plus(calendar.nextStart(calendar.windowStart(now)), ChronoUnit.MICROS);
		}
		return new QuotaUsage(policy.name(), subject, tier, inspected.limit(), used, inspected.remaining(), resetsAt);
	}

}
