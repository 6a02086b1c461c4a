package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A full concurrency cap frees a slot as soon as a request ends, so its denial is never answered from memory.
 */
class DenyCacheConcurrencyTests {

	private final AtomicLong nanos = new AtomicLong();

	private final DenyCache cache = new DenyCache(100, Duration.ofMillis(10), this.nanos::get);

	private final RateLimitCheck cap = RateLimitCheck.of(RateLimitPolicy.concurrency("cap", 1, Duration.ofHours(1)),
			"global");

	private final RateLimitCheck rate = RateLimitCheck
		.of(RateLimitPolicy.of("rate", Algorithm.GCRA, 1, Duration.ofHours(1)), "c1");

	@Test
	void aConcurrencyDenialIsNotRemembered() {
		this.cache.remember(new Verdict(List.of(this.cap), List.of(denied(Duration.ofSeconds(1)))));
		assertThat(this.cache.get(List.of(this.cap))).isNull();
		assertThat(this.cache.size()).isZero();
	}

	@Test
	void aRateDenialIsRememberedEvenBesideAConcurrencyCheckThatAllowed() {
		List<RateLimitCheck> checks = List.of(this.cap, this.rate);
		this.cache.remember(new Verdict(checks, List.of(allowed(), denied(Duration.ofMinutes(59)))));
		assertThat(this.cache.get(checks)).isNotNull();
	}

	private static Decision denied(Duration wait) {
		return new Decision(false, 1, 0, wait, wait);
	}

	private static Decision allowed() {
		return new Decision(true, 1, 1, Duration.ZERO, Duration.ZERO);
	}

}
