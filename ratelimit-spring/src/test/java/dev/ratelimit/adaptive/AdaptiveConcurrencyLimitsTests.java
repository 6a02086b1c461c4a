package dev.ratelimit.adaptive;

import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.rule.RequestMatch;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.util.pattern.PathPatternParser;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adaptive limits on Netflix's library, with a driven clock: places are taken under every matching limit or none,
 * released once, and the limit follows the latency the releases report.
 */
class AdaptiveConcurrencyLimitsTests {

	private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

	private final RateLimitRequest slow = new ServletRateLimitRequest(new MockHttpServletRequest("GET", "/slow"));

	@Test
	void deniesWhenTheLimitIsReachedAndAReleaseCountsOnce() {
		AdaptiveConcurrencyLimits limits = limits(rule("fixed", AdaptiveStrategy.AIMD, 2, 2, 2, RuleMode.ENFORCE));
		AdaptiveAdmission first = limits.admit(this.slow, null);
		AdaptiveAdmission second = limits.admit(this.slow, null);
		AdaptiveAdmission third = limits.admit(this.slow, null);
		assertThat(first.admitted()).isTrue();
		assertThat(second.admitted()).isTrue();
		assertThat(third.admitted()).isFalse();
		assertThat(third.denial()).isEqualTo(new AdaptiveDenial("fixed", 2));
		first.release(Outcome.COMPLETED);
		first.release(Outcome.COMPLETED);
		assertThat(limits.get("fixed").get().inFlight()).isOne();
		assertThat(limits.admit(this.slow, null).admitted()).isTrue();
		assertThat(limits.admit(this.slow, null).admitted()).isFalse();
	}

	@Test
	void aRequestTakesAPlaceUnderEveryMatchingLimitOrNone() {
		AdaptiveConcurrencyLimits limits = limits(rule("narrow", AdaptiveStrategy.AIMD, 1, 1, 1, RuleMode.ENFORCE),
				rule("wide", AdaptiveStrategy.AIMD, 5, 5, 5, RuleMode.ENFORCE));
		assertThat(limits.admit(this.slow, null).admitted()).isTrue();
		AdaptiveAdmission denied = limits.admit(this.slow, null);
		assertThat(denied.denial().rule()).isEqualTo("narrow");
		assertThat(limits.get("wide").get().inFlight()).as("the wide place is given back").isOne();
		assertThat(limits.admit(this.slow, RulePhase.AFTER_AUTHENTICATION)).as("no rule of that phase").isNull();
		assertThat(limits.admit(new ServletRateLimitRequest(new MockHttpServletRequest("GET", "/fast")), null))
			.isNull();
	}

	@Test
	void aShadowLimitThatIsFullAdmitsWithoutAPlace() {
		AdaptiveConcurrencyLimits limits = limits(rule("shadow", AdaptiveStrategy.AIMD, 1, 1, 1, RuleMode.SHADOW));
		assertThat(limits.admit(this.slow, null).admitted()).isTrue();
		assertThat(limits.admit(this.slow, null)).isNull();
		assertThat(limits.get("shadow").get().inFlight()).isOne();
	}

	@Test
	void gradient2LimitFallsWhenLatencyRisesAndRecoversWhenItFalls() {
		// 16 clients, more than half the maximum: Gradient2 learns only while the limit is at least half used
		AdaptiveConcurrencyLimits limits = limits(rule("g", AdaptiveStrategy.GRADIENT2, 10, 1, 20, RuleMode.ENFORCE));
		AdaptiveConcurrencyLimit limit = limits.get("g").get();
		assertThat(load(limits, 16, 10, 20).getMax()).as("grows while requests answer in 10 ms").isEqualTo(20);
		// Gradient2 then takes the higher latency as the new normal, slowly: the limit dips, and comes back
		assertThat(load(limits, 16, 200, 20).getMin()).as("falls when they take 200 ms").isLessThan(10);
		load(limits, 16, 10, 20);
		assertThat(limit.limit()).as("recovers at 10 ms").isEqualTo(20);
	}

	@Test
	void aTimeoutIsADropAndAFailureOrAnAbortIsNotMeasured() {
		AdaptiveConcurrencyLimits limits = limits(rule("aimd", AdaptiveStrategy.AIMD, 20, 1, 100, RuleMode.ENFORCE));
		AdaptiveConcurrencyLimit limit = limits.get("aimd").get();
		limits.admit(this.slow, null).release(Outcome.FAILED);
		limits.admit(this.slow, null).release(Outcome.ABORTED);
		limits.admit(this.slow, null).release(Outcome.REJECTED);
		assertThat(limit.limit()).isEqualTo(20);
		limits.admit(this.slow, null).release(Outcome.TIMED_OUT);
		assertThat(limit.limit()).as("AIMD backs off by 10% on a drop").isEqualTo(18);
		assertThat(limit.inFlight()).isZero();
	}

	@Test
	void vegasNeverGoesBelowTheMinimum() {
		AdaptiveConcurrencyLimits limits = limits(rule("vegas", AdaptiveStrategy.VEGAS, 10, 8, 100, RuleMode.ENFORCE));
		for (int i = 0; i < 50; i++) {
			AdaptiveAdmission admission = limits.admit(this.slow, null);
			this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(10));
			admission.release(Outcome.TIMED_OUT);
		}
		assertThat(limits.get("vegas").get().limit()).isEqualTo(8);
	}

	/**
	 * Runs rounds of {@code concurrency} requests at once (as many as the limit admits), each taking
	 * {@code latencyMillis} on the driven clock.
	 * @return the limits seen after each round
	 */
	private IntSummaryStatistics load(AdaptiveConcurrencyLimits limits, int concurrency, long latencyMillis,
			int rounds) {
		IntSummaryStatistics seen = new IntSummaryStatistics();
		for (int round = 0; round < rounds; round++) {
			List<AdaptiveAdmission> admitted = new ArrayList<>();
			for (int i = 0; i < concurrency; i++) {
				AdaptiveAdmission admission = limits.admit(this.slow, null);
				if (admission.admitted()) {
					admitted.add(admission);
				}
			}
			this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(latencyMillis));
			admitted.forEach((admission) -> admission.release(Outcome.COMPLETED));
			seen.accept(limits.all().get(0).limit());
		}
		return seen;
	}

	private AdaptiveConcurrencyLimits limits(AdaptiveConcurrencyRule... rules) {
		return NetflixConcurrencyLimiters.limits(List.of(rules), this.nanos::get);
	}

	private static AdaptiveConcurrencyRule rule(String name, AdaptiveStrategy strategy, int initial, int min, int max,
			RuleMode mode) {
		RequestMatch match = new RequestMatch(true, List.of(PathPatternParser.defaultInstance.parse("/slow")), List.of(),
				Set.of());
		return new AdaptiveConcurrencyRule(name, match, new AdaptiveSettings(strategy, initial, min, max), mode,
				RulePhase.BEFORE_AUTHENTICATION);
	}

}
