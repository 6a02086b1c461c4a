package dev.ratelimit.web;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class ProblemDetailRejectionHandlerTests {

	@ParameterizedTest(name = "{0} µs -> {1} s")
	@CsvSource(textBlock = """
			1,          1
			999999,     1
			1000000,    1
			1000001,    2
			1500000,    2
			2000000,    2
			2000001,    3
			59999999,   60
			""")
	void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne(long micros, long seconds) {
		assertThat(ProblemDetailRejectionHandler.retryAfterSeconds(Duration.of(micros, ChronoUnit.MICROS)))
			.isEqualTo(seconds);
	}

}
