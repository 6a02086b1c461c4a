package dev.ratelimit.rule;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.convert.DurationStyle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link Periods} reads text as Spring Boot binds a {@link Duration} property without depending on Spring Boot (it
 * lives in {@code ratelimit-spring}); here, where Boot is on the class path, it is held to Boot's own parser.
 */
class PeriodsTests {

	@ParameterizedTest
	@ValueSource(strings = { "1", "500", "500ms", "10s", "1m", "15m", "1h", "1d", "7d", "366d", "250us", "1000000ns", "10S",
			"1M", "+5s", "-5s", "0", "PT10S", "PT15M", "P1D", "pt1h30m", "-PT1S", "P1DT2H", " 10s " })
	void readsWhatBootReads(String text) {
		assertThat(Periods.parse(text)).isEqualTo(DurationStyle.detectAndParse(text.trim()));
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "ten seconds", "10 s", "10sec", "1w", "1y", "P", "PT", "1.5s", "s", "99999999999999999999s" })
	void refusesWhatBootRefusesNamingTheForms(String text) {
		assertThatIllegalArgumentException().isThrownBy(() -> DurationStyle.detectAndParse(text.trim()));
		assertThatIllegalArgumentException().isThrownBy(() -> Periods.parse(text))
			.withMessageContaining("'" + text + "' is not a duration; use " + Periods.FORMS);
	}

}
