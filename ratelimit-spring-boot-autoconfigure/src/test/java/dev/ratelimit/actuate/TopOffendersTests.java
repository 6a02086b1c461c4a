package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener.Source;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.actuate.TopOffenders.Offender;
import dev.ratelimit.store.Subjects;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TopOffendersTests {

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("api", Algorithm.GCRA, 1, Duration.ofMinutes(1));

	private static final Decision DENIED = new Decision(false, 1, 0, Duration.ofSeconds(60), Duration.ofSeconds(60));

	private final TopOffenders offenders = new TopOffenders(100, Duration.ofMinutes(10), () -> 0);

	@Test
	void compositeSubjectsAreShownAsTheRuleResolvedThem() {
		deny("acme|GET /composite/a", 3);
		deny("10.0.0.1", 1);
		assertThat(top()).containsExactly(new Offender("acme|GET /composite/a", 3, 0), new Offender("10.0.0.1", 1, 0));
	}

	@Test
	void longSubjectsAreCutAndTellApartByTheirHash() {
		String prefix = "tenant-" + "a".repeat(100);
		String first = prefix + "|first";
		String second = prefix + "|second";
		deny(first, 2);
		deny(second, 1);
		List<Offender> top = top();
		assertThat(top).hasSize(2).extracting(Offender::denials).containsExactly(2L, 1L);
		assertThat(top.get(0).subject()).isEqualTo(prefix.substring(0, 64) + "\u2026 ~"
				+ Subjects.safe(first).substring(1, 9));
		assertThat(top.get(1).subject()).startsWith(prefix.substring(0, 64) + "\u2026 ~")
			.isNotEqualTo(top.get(0).subject())
			.hasSize(64 + 3 + 8);
	}

	@Test
	void controlAndInvisibleCharactersAreReplaced() {
		String subject = "evil\nline\u0000\u202Eright-to-left\u2028";
		deny(subject, 1);
		deny("evil\rline\u0000\u202Eright-to-left\u2028", 1);
		List<Offender> top = top();
		assertThat(top).hasSize(2);
		assertThat(top).extracting(Offender::subject)
			.doesNotHaveDuplicates()
			.contains("evil\uFFFDline\uFFFD\uFFFDright-to-left\uFFFD ~" + Subjects.safe(subject).substring(1, 9))
			.allSatisfy((shown) -> assertThat(shown.codePoints()).noneMatch(Character::isISOControl));
	}

	@Test
	void printableUnicodeIsShownAsItIs() {
		assertThat(TopOffenders.readable("José|GET /cafés/ü")).isEqualTo("José|GET /cafés/ü");
		assertThat(TopOffenders.readable("é".repeat(64))).isEqualTo("é".repeat(64));
		assertThat(TopOffenders.readable("a" + "\uD83D\uDE00".repeat(40))).as("a surrogate pair is never cut")
			.startsWith("a" + "\uD83D\uDE00".repeat(31) + "\u2026 ~");
		assertThat(TopOffenders.readable("x\uD800y")).as("a lone surrogate").startsWith("x\uFFFDy ~");
	}

	@Test
	void memoryPerSubjectIsBoundedWhateverClientsSend() {
		for (int i = 0; i < 300; i++) {
			deny(i + "x".repeat(10_000), 1);
		}
		assertThat(this.offenders.top(1_000).get("api")).hasSize(100)
			.allSatisfy((offender) -> assertThat(offender.subject()).hasSizeLessThanOrEqualTo(75));
	}

	private void deny(String subject, int times) {
		for (int i = 0; i < times; i++) {
			this.offenders.onVerdict(new Verdict(List.of(RateLimitCheck.of(POLICY, subject)), List.of(DENIED)),
					Source.STORE);
		}
	}

	private List<Offender> top() {
		return this.offenders.top(10).get("api");
	}

}
