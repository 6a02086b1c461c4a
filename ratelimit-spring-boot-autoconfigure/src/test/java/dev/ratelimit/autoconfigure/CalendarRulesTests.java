package dev.ratelimit.autoconfigure;

import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.CalendarPeriod.Unit;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.mock.web.MockHttpServletRequest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code calendar}, {@code zone} and {@code week-start} compile into a calendar quota (fixed windows aligned to the
 * zone's calendar, tiers included); start-up fails naming the property for an unknown zone, a calendar beside a
 * period, a calendar with an algorithm that is not fixed-window, spread windows or local decisions. {@code zone-key}
 * gives each request's subject its zone (tier and exception policies included), falls back to {@code zone} (reported as
 * a resolution failure) for a value that is not an IANA zone id, and fails start-up on a rule without a calendar.
 */
class CalendarRulesTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
		.withPropertyValues("ratelimit.store=local", "ratelimit.rules.quota.limit=1000",
				"ratelimit.rules.quota.calendar=day", "ratelimit.rules.quota.key=api-key");

	@Test
	void calendarCompilesIntoAFixedWindowQuotaInItsZoneWithTiers() {
		this.runner.withPropertyValues("ratelimit.rules.quota.zone=Europe/Berlin", "ratelimit.rules.quota.tiers.pro=5000",
				"ratelimit.rules.quota.tier-key=header:X-Plan")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimitRule rule = context.getBean(RateLimitRules.class).get("quota").orElseThrow();
				CalendarPeriod days = CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin"));
				assertThat(rule.policy()).isEqualTo(RateLimitPolicy.calendar("quota", 1000, days));
				assertThat(rule.tiers().get("pro")).isEqualTo(RateLimitPolicy.calendar("quota", 5000, days));
			});
	}

	@Test
	void zoneDefaultsToUtcAndWeeksToMonday() {
		this.runner.withPropertyValues("ratelimit.rules.quota.calendar=week").run((context) -> {
			RateLimitPolicy policy = context.getBean(RateLimitRules.class).get("quota").orElseThrow().policy();
			assertThat(policy.calendar()).isEqualTo(new CalendarPeriod(Unit.WEEK, ZoneId.of("UTC"), DayOfWeek.MONDAY));
			assertThat(policy.algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
			assertThat(policy.period()).isEqualTo(Duration.ofDays(7));
		});
		this.runner.withPropertyValues("ratelimit.rules.quota.calendar=week", "ratelimit.rules.quota.week-start=sunday",
				"ratelimit.rules.quota.algorithm=fixed-window")
			.run((context) -> assertThat(
					context.getBean(RateLimitRules.class).get("quota").orElseThrow().policy().calendar().weekStart())
				.isEqualTo(DayOfWeek.SUNDAY));
	}

	@Test
	void unknownZoneFailsStartUpNamingZone() {
		this.runner.withPropertyValues("ratelimit.rules.quota.zone=Europe/Berlinn")
			.run(fails("ratelimit.rules.quota.zone", "Europe/Berlinn", "IANA zone"));
	}

	@Test
	void calendarBesidePeriodFailsStartUpNamingPeriod() {
		this.runner.withPropertyValues("ratelimit.rules.quota.period=1d")
			.run(fails("ratelimit.rules.quota.period", "takes the place of period", "Remove period"));
	}

	@Test
	void calendarWithAnAlgorithmThatIsNotAWindowFailsStartUpNamingAlgorithm() {
		this.runner.withPropertyValues("ratelimit.rules.quota.algorithm=gcra")
			.run(fails("ratelimit.rules.quota.algorithm", "gcra is not one", "calendar implies fixed-window"));
		this.runner.withPropertyValues("ratelimit.rules.quota.algorithm=sliding-window-counter")
			.run(fails("ratelimit.rules.quota.algorithm", "sliding-window-counter is not one", "fixed-window"));
	}

	@Test
	void calendarWithSpreadWindowsOrLocalDecisionsFailsStartUp() {
		this.runner.withPropertyValues("ratelimit.rules.quota.spread-windows=true")
			.run(fails("ratelimit.rules.quota.spread-windows", "calendar's boundaries", "Remove spread-windows"));
		this.runner.withPropertyValues("ratelimit.rules.quota.sync=local")
			.run(fails("ratelimit.rules.quota.sync", "decided exactly", "sync: exact"));
	}

	@Test
	void zoneKeyResolvesTheSubjectsZonePerRequestAndFallsBackToZoneReportingAValueThatIsNotOne() {
		List<ResolutionPart> reported = new ArrayList<>();
		RateLimitListener listener = new RateLimitListener() {
			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				reported.add(part);
				assertThat(failure.getMessage()).doesNotContain("Mars");
			}
		};
		this.runner
			.withPropertyValues("ratelimit.rules.quota.zone=Europe/Berlin", "ratelimit.rules.quota.tiers.pro=5000",
					"ratelimit.rules.quota.tier-key=header:X-Plan", "ratelimit.rules.quota.zone-key=header:X-Zone",
					"ratelimit.rules.quota.exceptions.vip=9000")
			.withBean(RateLimitListener.class, () -> listener)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				RateLimitRule rule = rules.get("quota").orElseThrow();
				ZoneId newYork = ZoneId.of("America/New_York");
				CalendarPeriod berlinDays = CalendarPeriod.of(Unit.DAY, ZoneId.of("Europe/Berlin"));
				CalendarPeriod newYorkDays = CalendarPeriod.of(Unit.DAY, newYork);
				assertThat(rule.policyFor(request(Map.of("X-Zone", "America/New_York", "X-Plan", "pro")), "a",
						rules.resolutionFailures()))
					.isEqualTo(RateLimitPolicy.calendar("quota", 5000, newYorkDays));
				assertThat(rule.policyFor(request(Map.of("X-Zone", " America/New_York ")), "vip",
						rules.resolutionFailures()))
					.as("an exception in the subject's zone")
					.isEqualTo(RateLimitPolicy.calendar("quota", 9000, newYorkDays));
				assertThat(rule.policyFor(request(Map.of()), "a", rules.resolutionFailures()))
					.as("no zone: the rule's, nothing reported")
					.isSameAs(rule.policy());
				assertThat(reported).isEmpty();
				for (String notAZone : List.of("Mars/Olympus", "+02:00", "europe/berlin", "UTC+2")) {
					assertThat(rule.policyFor(request(Map.of("X-Zone", notAZone)), "a", rules.resolutionFailures()))
						.as(notAZone)
						.isEqualTo(RateLimitPolicy.calendar("quota", 1000, berlinDays));
				}
				assertThat(reported).containsOnly(ResolutionPart.ZONE_KEY).hasSize(4);
				assertThat(RuleCompiler.describe(rule, context.getBean(RateLimitProperties.class).getRules().get("quota")))
					.contains("per day in Europe/Berlin (or the subject's zone from header:X-Zone)");
			});
	}

	@Test
	void zoneKeyMayBeABeanOrATemplateAndNothingFoundIsTheRulesZoneUnreported() {
		List<ResolutionPart> reported = new ArrayList<>();
		RateLimitListener listener = new RateLimitListener() {
			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				reported.add(part);
			}
		};
		CalendarPeriod tokyoDays = CalendarPeriod.of(Unit.DAY, ZoneId.of("Asia/Tokyo"));
		KeyResolver zoneOfCustomer = (request) -> "tokyo-co".equals(request.getHeader("X-API-Key")) ? "Asia/Tokyo" : null;
		this.runner.withPropertyValues("ratelimit.rules.quota.zone-key=@zoneOfCustomer")
			.withBean("zoneOfCustomer", KeyResolver.class, () -> zoneOfCustomer)
			.withBean(RateLimitListener.class, () -> listener)
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				RateLimitRule rule = rules.get("quota").orElseThrow();
				assertThat(rule.policyFor(request(Map.of("X-API-Key", "tokyo-co")), "tokyo-co",
						rules.resolutionFailures()))
					.isEqualTo(RateLimitPolicy.calendar("quota", 1000, tokyoDays));
				assertThat(rule.policyFor(request(Map.of("X-API-Key", "other")), "other", rules.resolutionFailures()))
					.isSameAs(rule.policy());
			});
		this.runner.withPropertyValues("ratelimit.rules.quota.zone-key=#{request.getHeader('X-Zone')}")
			.withBean(RateLimitListener.class, () -> listener)
			.run((context) -> {
				RateLimitRules rules = context.getBean(RateLimitRules.class);
				RateLimitRule rule = rules.get("quota").orElseThrow();
				assertThat(rule.policyFor(request(Map.of("X-Zone", "Asia/Tokyo")), "a", rules.resolutionFailures()))
					.isEqualTo(RateLimitPolicy.calendar("quota", 1000, tokyoDays));
				assertThat(rule.policyFor(request(Map.of()), "a", rules.resolutionFailures())).isSameAs(rule.policy());
			});
		assertThat(reported).as("nothing found is not a failure").isEmpty();
	}

	@Test
	void zoneKeyOnARuleWithoutACalendarFailsStartUpNamingZoneKey() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class))
			.withPropertyValues("ratelimit.store=local", "ratelimit.rules.api.limit=10", "ratelimit.rules.api.period=1m",
					"ratelimit.rules.api.zone-key=header:X-Zone")
			.run(fails("ratelimit.rules.api.zone-key", "has no calendar", "Set calendar"));
	}

	@Test
	void aBlankOrInvalidZoneKeyFailsStartUpNamingIt() {
		this.runner.withPropertyValues("ratelimit.rules.quota.zone-key= ")
			.run(fails("ratelimit.rules.quota.zone-key", "is blank", "IANA zone id"));
		this.runner.withPropertyValues("ratelimit.rules.quota.zone-key=#{request.getHeader(}")
			.run(fails("ratelimit.rules.quota.zone-key", "not a valid SpEL template", "Fix the expression"));
		this.runner.withPropertyValues("ratelimit.rules.quota.zone-key=user")
			.run(fails("ratelimit.rules.quota.zone-key", "does not read a zone from the request", "header:<Name>"));
	}

	@Test
	void aFixedZoneIsStillValidatedBesideAZoneKey() {
		this.runner
			.withPropertyValues("ratelimit.rules.quota.zone=Europe/Berlinn", "ratelimit.rules.quota.zone-key=header:X-Zone")
			.run(fails("ratelimit.rules.quota.zone", "Europe/Berlinn", "IANA zone"));
	}

	private static RateLimitRequest request(Map<String, String> headers) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api");
		headers.forEach(request::addHeader);
		return new ServletRateLimitRequest(request);
	}

	private static ContextConsumer<AssertableApplicationContext> fails(String property, String reason, String fix) {
		return (context) -> assertThat(context).getFailure()
			.rootCause()
			.isInstanceOf(InvalidRateLimitRuleException.class)
			.hasMessageContaining(property)
			.hasMessageContaining(reason)
			.hasMessageContaining(fix);
	}

}
