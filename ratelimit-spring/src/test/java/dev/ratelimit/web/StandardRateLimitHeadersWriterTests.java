package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the standard headers say of a verdict, field by field.
 */
class StandardRateLimitHeadersWriterTests {

	private static final long NOW_MICROS = 1_795_000_000_250_000L;

	private static final RateLimitCheck CHECK = RateLimitCheck
		.of(RateLimitPolicy.of("api", Algorithm.TOKEN_BUCKET, 3, Duration.ofSeconds(6)), "203.0.113.7");

	@Test
	void tIsTheNextUnitAndTheResetIsTheStoresInstantWhateverTheRequestsClock() {
		// next unit in 1.2 s, full in 5.2 s, decided at ...000.25 on the store's clock
		Decision decision = Decision.ofMicros(true, 3, 1, 5_200_000, 0, 1_200_000, NOW_MICROS);
		for (Instant requestClock : List.of(Instant.EPOCH, Instant.ofEpochSecond(1_795_000_003))) {
			MockHttpServletResponse response = write(Clock.fixed(requestClock, ZoneOffset.UTC), decision);
			assertThat(response.getHeader("RateLimit")).isEqualTo("\"api\";r=1;t=2");
			assertThat(response.getHeader("X-RateLimit-Reset")).isEqualTo("1795000006");
		}
	}

	@Test
	void noTWhenNothingIsUsed() {
		Decision full = Decision.ofMicros(true, 3, 3, 0, 0, 0, NOW_MICROS);
		assertThat(write(Clock.systemUTC(), full).getHeader("RateLimit")).isEqualTo("\"api\";r=3");
	}

	@Test
	void aConcurrencyRuleHasAQuotaUnitAndNoWindow() {
		RateLimitCheck concurrency = RateLimitCheck.of(RateLimitPolicy.concurrency("in-flight", 2, Duration.ofMinutes(1)),
				"203.0.113.7");
		Decision decision = Decision.ofMicros(true, 2, 1, 60_000_000, 0, 0, NOW_MICROS);
		MockHttpServletResponse response = new MockHttpServletResponse();
		new StandardRateLimitHeadersWriter(HeaderStyle.IETF, Clock.systemUTC())
			.write(response, new Verdict(List.of(concurrency), List.of(decision)));
		assertThat(response.getHeader("RateLimit-Policy")).isEqualTo("\"in-flight\";q=2;qu=\"concurrent-requests\"");
		assertThat(response.getHeader("RateLimit")).isEqualTo("\"in-flight\";r=1");
	}

	@Test
	void aDeniedRequestIsDescribedByARuleThatDeniedIt() {
		RateLimitCheck daily = RateLimitCheck.of(RateLimitPolicy.of("daily", Algorithm.FIXED_WINDOW, 1000,
				Duration.ofDays(1)), "203.0.113.7");
		// the token bucket denies (next unit in 1.2 s); the daily rule has as few left but is not what denied
		Decision denied = Decision.ofMicros(false, 3, 0, 5_200_000, 1_200_000, 1_200_000, NOW_MICROS);
		Decision dailyDecision = Decision.ofMicros(true, 1000, 0, 80_000_000_000L, 0, 80_000_000_000L, NOW_MICROS);
		MockHttpServletResponse response = new MockHttpServletResponse();
		new StandardRateLimitHeadersWriter(HeaderStyle.IETF, Clock.systemUTC())
			.write(response, new Verdict(List.of(daily, CHECK), List.of(dailyDecision, denied)));
		assertThat(response.getHeader("RateLimit")).isEqualTo("\"api\";r=0;t=2");
	}

	private static MockHttpServletResponse write(Clock clock, Decision decision) {
		MockHttpServletResponse response = new MockHttpServletResponse();
		new StandardRateLimitHeadersWriter(HeaderStyle.BOTH, clock)
			.write(response, new Verdict(List.of(CHECK), List.of(decision)));
		return response;
	}

}
