package dev.ratelimit.web;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.CalendarPeriod.Unit;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The headers of a calendar quota at 23:59:59 local time give one second to the reset (the IETF {@code t} of a spent
 * quota, the legacy reset at local midnight), on a 23-hour and a 25-hour day as on any other; {@code w} is the
 * nominal length of the window (a day's 86400 seconds, a month's 31 days).
 */
class CalendarQuotaHeadersTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	@ParameterizedTest
	@ValueSource(strings = { "2026-03-29", "2026-10-25", "2026-06-17" })
	void oneSecondBeforeLocalMidnightTheResetIsOneSecondAway(String date) {
		LocalDateTime lastSecond = LocalDateTime.parse(date + "T23:59:59");
		MutableClock clock = new MutableClock(lastSecond.atZone(BERLIN).toEpochSecond() * 1_000_000L);
		LocalRateLimitStore store = new LocalRateLimitStore(100, clock);
		RateLimitPolicy policy = RateLimitPolicy.calendar("daily", 2, CalendarPeriod.of(Unit.DAY, BERLIN));
		List<RateLimitCheck> request = List.of(new RateLimitCheck(policy, "customer", 1, false));
		store.evaluate(request);
		store.evaluate(request);
		Verdict denied = new Verdict(request, store.evaluate(request));
		assertThat(denied.allowed()).isFalse();
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.BOTH, clock, null).of(denied);
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"daily\";r=0;t=1");
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("\"daily\";q=2;w=86400");
		long midnight = lastSecond.plusSeconds(1).atZone(BERLIN).toEpochSecond();
		assertThat(headers.getFirst("X-RateLimit-Reset")).isEqualTo(Long.toString(midnight));
	}

	@ParameterizedTest
	@ValueSource(strings = { "2026-02-28", "2026-03-31" })
	void monthQuotaResetsOnTheFirstAndItsWindowIsThirtyOneDays(String lastDay) {
		LocalDateTime lastSecond = LocalDateTime.parse(lastDay + "T23:59:59");
		MutableClock clock = new MutableClock(lastSecond.atZone(BERLIN).toEpochSecond() * 1_000_000L);
		LocalRateLimitStore store = new LocalRateLimitStore(100, clock);
		RateLimitPolicy policy = RateLimitPolicy.calendar("monthly", 5, CalendarPeriod.of(Unit.MONTH, BERLIN));
		List<RateLimitCheck> request = List.of(new RateLimitCheck(policy, "customer", 1, false));
		HttpHeaders headers = new RateLimitHeaders(HeaderStyle.BOTH, clock, null)
			.of(new Verdict(request, store.evaluate(request)));
		assertThat(headers.getFirst("RateLimit")).isEqualTo("\"monthly\";r=4;t=1");
		assertThat(headers.getFirst("RateLimit-Policy")).isEqualTo("\"monthly\";q=5;w=2678400");
	}

}
