package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@link RateLimitUsage} bean reads a subject's usage of its quota rules (used, limit, remaining, resets at)
 * without spending anything, at the rule's limit or a tier's; a user's own bean replaces it.
 */
class RateLimitUsageTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private final MutableClock clock = new MutableClock(
			LocalDateTime.parse("2026-03-29T18:00").atZone(BERLIN).toEpochSecond() * 1_000_000L);

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withBean(Clock.class, () -> this.clock)
		.withPropertyValues("ratelimit.store=local", "ratelimit.rules.daily.limit=10",
				"ratelimit.rules.daily.calendar=day", "ratelimit.rules.daily.zone=Europe/Berlin",
				"ratelimit.rules.daily.tiers.pro=100", "ratelimit.rules.daily.tier-key=header:X-Plan");

	@Test
	void usageIsReadWithoutSpending() {
		this.runner.run((context) -> {
			RateLimitUsage usage = context.getBean(RateLimitUsage.class);
			RateLimitRule rule = context.getBean(RateLimitRules.class).get("daily").orElseThrow();
			RateLimiter limiter = context.getBean(RateLimiter.class);
			for (int i = 0; i < 4; i++) {
				limiter.evaluate(RateLimitCheck.of(rule.policy(), "key-1"));
			}
			Instant midnight = LocalDateTime.parse("2026-03-30T00:00").atZone(BERLIN).toInstant();
			QuotaUsage read = usage.of("daily", "key-1").orElseThrow();
			assertThat(read).isEqualTo(new QuotaUsage("daily", "key-1", null, 10, 4, 6, midnight));
			for (int i = 0; i < 20; i++) {
				assertThat(usage.of("daily", "key-1")).contains(read);
			}
			for (int i = 0; i < 6; i++) {
				assertThat(limiter.evaluate(RateLimitCheck.of(rule.policy(), "key-1")).allowed()).isTrue();
			}
			assertThat(limiter.evaluate(RateLimitCheck.of(rule.policy(), "key-1")).allowed()).isFalse();
			assertThat(usage.of("daily", "key-1").orElseThrow().remaining()).isZero();
		});
	}

	@Test
	void aSubjectThatUsedNothingSeesItsFullQuotaAndTheWindowsEnd() {
		this.runner.run((context) -> {
			RateLimitUsage usage = context.getBean(RateLimitUsage.class);
			assertThat(usage.of("daily", "new", "pro")).contains(new QuotaUsage("daily", "new", "pro", 100, 0, 100,
					LocalDateTime.parse("2026-03-30T00:00").atZone(BERLIN).toInstant()));
			assertThat(usage.of("daily", "new", "unknown-tier").orElseThrow().limit()).isEqualTo(10);
			assertThat(usage.of("nope", "new")).isEmpty();
		});
	}

	@Test
	void aSubjectWithAnExceptionSeesItsOwnLimit() {
		this.runner.withPropertyValues("ratelimit.rules.daily.exceptions.partner-7=500").run((context) -> {
			RateLimitUsage usage = context.getBean(RateLimitUsage.class);
			assertThat(usage.of("daily", "partner-7").orElseThrow().limit()).isEqualTo(500);
			assertThat(usage.of("daily", "partner-7", "pro").orElseThrow().limit()).as("whatever its tier")
				.isEqualTo(500);
			assertThat(usage.of("daily", "other").orElseThrow().limit()).isEqualTo(10);
		});
	}

	@Test
	void aCalendarQuotaIsReadInTheSubjectsZone() {
		this.runner.run((context) -> {
			RateLimitUsage usage = context.getBean(RateLimitUsage.class);
			// 18:00 in Berlin is noon in New York: the subject's day there ends at its midnight, not Berlin's
			assertThat(usage.of("daily", "new", null, ZoneId.of("America/New_York")).orElseThrow().resetsAt())
				.isEqualTo(LocalDateTime.parse("2026-03-30T00:00").atZone(ZoneId.of("America/New_York")).toInstant());
			assertThat(usage.of("daily", "new", "pro", null).orElseThrow().resetsAt())
				.isEqualTo(LocalDateTime.parse("2026-03-30T00:00").atZone(BERLIN).toInstant());
		});
	}

	@Test
	void aUserBeanReplacesIt() {
		RateLimitUsage own = new RateLimitUsage(new RateLimitRules(java.util.List.of()),
				new dev.ratelimit.local.LocalRateLimitStore(10), Clock.systemUTC());
		this.runner.withBean(RateLimitUsage.class, () -> own)
			.run((context) -> assertThat(context.getBean(RateLimitUsage.class)).isSameAs(own));
	}

}
