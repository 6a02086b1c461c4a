package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which status a denial asks for when its denying checks disagree: 429 as soon as one says so (the client can act on
 * it), 503 only when every denying check says 503 or the store is unavailable.
 */
class VerdictDenialStatusTests {

	private static final DenialStatus TOO_MANY = DenialStatus.TOO_MANY_REQUESTS;

	private static final DenialStatus UNAVAILABLE = DenialStatus.SERVICE_UNAVAILABLE;

	private final RateLimitPolicy cap = RateLimitPolicy.concurrency("cap", 8, Duration.ofMinutes(1));

	private final RateLimitPolicy rate = RateLimitPolicy.of("rate", Algorithm.GCRA, 10, Duration.ofMinutes(1));

	@Test
	void aDenialOnlyByA503CheckIs503() {
		Verdict verdict = verdict(check(this.cap, UNAVAILABLE, false), denied(), check(this.rate, TOO_MANY, false),
				allowed());
		assertThat(verdict.denialStatus()).isEqualTo(UNAVAILABLE);
		assertThat(new RateLimitExceededException(verdict).getStatus()).isEqualTo(UNAVAILABLE);
	}

	@Test
	void aDenialByA429CheckIs429WhateverElseDenied() {
		Verdict verdict = verdict(check(this.cap, UNAVAILABLE, false), denied(), check(this.rate, TOO_MANY, false),
				denied());
		assertThat(verdict.denialStatus()).isEqualTo(TOO_MANY);
	}

	@Test
	void aShadowCheckThatWouldHaveDeniedDoesNotChooseTheStatus() {
		Verdict verdict = verdict(check(this.cap, UNAVAILABLE, false), denied(), check(this.rate, TOO_MANY, true),
				denied());
		assertThat(verdict.denialStatus()).isEqualTo(UNAVAILABLE);
	}

	@Test
	void aStoreThatIsUnavailableIs503() {
		RateLimitCheck check = check(this.rate, TOO_MANY, false);
		assertThat(new Verdict(List.of(check), List.of(denied()), true).denialStatus()).isEqualTo(UNAVAILABLE);
	}

	@Test
	void theStatusSurvivesAMergeOfVerdicts() {
		Verdict first = verdict(check(this.rate, TOO_MANY, false), allowed(), check(this.rate, TOO_MANY, true),
				allowed());
		Verdict later = new Verdict(List.of(check(this.cap, UNAVAILABLE, false)), List.of(denied()));
		assertThat(first.merge(later).denialStatus()).isEqualTo(UNAVAILABLE);
	}

	@Test
	void checksWithoutAStatusAnswer429() {
		assertThat(RateLimitCheck.of(this.cap, "global").status()).isEqualTo(TOO_MANY);
		assertThat(check(this.cap, UNAVAILABLE, false).withCost(0).status()).isEqualTo(UNAVAILABLE);
	}

	private static RateLimitCheck check(RateLimitPolicy policy, DenialStatus status, boolean shadow) {
		return new RateLimitCheck(policy, "global", 1, shadow, status);
	}

	private static Verdict verdict(RateLimitCheck first, Decision firstDecision, RateLimitCheck second,
			Decision secondDecision) {
		return new Verdict(List.of(first, second), List.of(firstDecision, secondDecision));
	}

	private static Decision allowed() {
		return new Decision(true, 10, 5, Duration.ZERO, Duration.ZERO);
	}

	private static Decision denied() {
		return new Decision(false, 10, 0, Duration.ofSeconds(1), Duration.ofMillis(200));
	}

}
