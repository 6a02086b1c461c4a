package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveConcurrencyRule;
import dev.ratelimit.adaptive.AdaptiveSettings;
import dev.ratelimit.adaptive.AdaptiveStrategy;
import dev.ratelimit.adaptive.NetflixConcurrencyLimiters;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RequestMatch;
import dev.ratelimit.rule.ResolutionFailures;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.store.StoreRateLimiter;
import jakarta.servlet.FilterChain;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The filter never turns a request into a 500 because limiting failed, never runs the application twice, and never
 * keeps an adaptive place for a request that does not proceed.
 */
class RateLimitFilterTests {

	private final AtomicInteger calls = new AtomicInteger();

	@Test
	void aListenerThatThrowsWhileAKeyFallsBackAdmitsTheRequestOnce() throws Exception {
		RateLimitListener throwing = new RateLimitListener() {

			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				throw new IllegalStateException("listener bug");
			}

		};
		RateLimitFilter filter = filter(new ResolutionFailures(() -> throwing, System::nanoTime));
		MockHttpServletResponse response = new MockHttpServletResponse();
		filter.doFilter(new MockHttpServletRequest("GET", "/api"), response, counting(null));
		assertThat(this.calls).hasValue(1);
		assertThat(response.getStatus()).isEqualTo(200);
	}

	@Test
	void anExceptionOfTheApplicationIsNotMistakenForALimiterFailure() {
		RateLimitFilter filter = filter(ResolutionFailures.logOnly());
		assertThatIllegalStateException().isThrownBy(() -> filter.doFilter(new MockHttpServletRequest("GET", "/api"),
				new MockHttpServletResponse(), counting(new IllegalStateException("controller failed"))));
		assertThat(this.calls).as("the application ran once").hasValue(1);
	}

	@Test
	void aFailureBeforeTheRequestProceedsGivesItsAdaptivePlaceBack() {
		AdaptiveConcurrencyLimits adaptive = NetflixConcurrencyLimiters.limits(List.of(new AdaptiveConcurrencyRule("one",
				RequestMatch.all(), new AdaptiveSettings(AdaptiveStrategy.AIMD, 1, 1, 1), RuleMode.ENFORCE,
				RulePhase.BEFORE_AUTHENTICATION)), System::nanoTime);
		RateLimitHeadersWriter failing = (response, verdict) -> {
			throw new IllegalStateException("headers writer bug");
		};
		RateLimitPolicy policy = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));
		RateLimitRule rule = RateLimitRule.builder("api", policy).key((request) -> "subject").build();
		RateLimitFilter filter = new RateLimitFilter(new RateLimitRules(List.of(rule)),
				new StoreRateLimiter(new LocalRateLimitStore(100, Clock.systemUTC())), failing,
				new ProblemDetailRejectionHandler(), null, adaptive, AdmissionListener.NONE);
		assertThatIllegalStateException().isThrownBy(() -> filter.doFilter(new MockHttpServletRequest("GET", "/api"),
				new MockHttpServletResponse(), counting(null)));
		assertThat(adaptive.get("one").get().inFlight()).isZero();
	}

	private FilterChain counting(RuntimeException failure) {
		return (request, response) -> {
			this.calls.incrementAndGet();
			if (failure != null) {
				throw failure;
			}
		};
	}

	private static RateLimitFilter filter(ResolutionFailures failures) {
		RateLimitPolicy policy = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));
		RateLimitRule rule = RateLimitRule.builder("api", policy).key((request) -> {
			throw new IllegalArgumentException("key expression failed");
		}).build();
		return new RateLimitFilter(new RateLimitRules(List.of(rule), failures),
				new StoreRateLimiter(new LocalRateLimitStore(100, Clock.systemUTC())),
				new StandardRateLimitHeadersWriter(HeaderStyle.BOTH, Clock.systemUTC()), new ProblemDetailRejectionHandler(),
				null);
	}

}
