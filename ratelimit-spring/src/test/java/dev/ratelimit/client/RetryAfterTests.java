package dev.ratelimit.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code Retry-After} as seconds or an HTTP date, and what is not one.
 */
class RetryAfterTests {

	private final Clock clock = Clock.fixed(Instant.parse("2026-11-23T12:00:00Z"), ZoneOffset.UTC);

	@Test
	void secondsAreAWait() {
		assertThat(RetryAfter.parse("120", this.clock)).isEqualTo(Duration.ofSeconds(120));
		assertThat(RetryAfter.parse(" 0 ", this.clock)).isEqualTo(Duration.ZERO);
	}

	@Test
	void anHttpDateIsAWaitFromNow() {
		assertThat(RetryAfter.parse("Mon, 23 Nov 2026 12:01:30 GMT", this.clock)).isEqualTo(Duration.ofSeconds(90));
	}

	@Test
	void aDateInThePastIsNoWait() {
		assertThat(RetryAfter.parse("Mon, 23 Nov 2026 11:00:00 GMT", this.clock)).isEqualTo(Duration.ZERO);
	}

	@Test
	void anythingElseIsNotAWait() {
		assertThat(RetryAfter.parse(null, this.clock)).isNull();
		assertThat(RetryAfter.parse("", this.clock)).isNull();
		assertThat(RetryAfter.parse("-5", this.clock)).isNull();
		assertThat(RetryAfter.parse("1.5", this.clock)).isNull();
		assertThat(RetryAfter.parse("soon", this.clock)).isNull();
		assertThat(RetryAfter.parse("99999999999999999999999", this.clock)).isNull();
	}

}
