package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.SwitchableStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RateLimitMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final AtomicLong nanos = new AtomicLong();

	private final SwitchableStore primary = new SwitchableStore(
			new LocalRateLimitStore(1_000, this.clock));

	private ResilientRateLimiter limiter;

	private final RateLimitPolicy api = RateLimitPolicy.of("api", Algorithm.GCRA, 10, Duration.ofMinutes(1));

	private final RateLimitPolicy shadow = RateLimitPolicy.of("shadowed", Algorithm.FIXED_WINDOW, 1, Duration.ofMinutes(1));

	private final RateLimitPolicy open = RateLimitPolicy.of("open", Algorithm.GCRA, 10, Duration.ofMinutes(1));

	private RateLimitMetrics metrics() {
		RateLimitMetrics metrics = new RateLimitMetrics(this.registry, 0.2, () -> this.limiter.state());
		this.limiter = ResilientRateLimiter.builder(this.primary)
			.fallbackStore(new LocalRateLimitStore(1_000, this.clock))
			// opens at the first failure (half of the last two calls): who decides is the breaker's state
			.circuitBreakerConfig((config) -> config.slidingWindowSize(2).minimumNumberOfCalls(2))
			.denyCacheMaximumEntries(100)
			.denyCacheMinimumWait(Duration.ofMillis(10))
			.failureModes(Map.of("api", StoreFailureMode.LOCAL, "shadowed", StoreFailureMode.LOCAL, "open",
					StoreFailureMode.ALLOW)::get)
			.nanoTime(this.nanos::get)
			.listener(metrics)
			.build();
		return metrics;
	}

	@Test
	void countsPerOutcomeMatchTheRequestsSent() {
		metrics();
		for (int i = 0; i < 14; i++) {
			this.limiter.evaluate(List.of(RateLimitCheck.of(this.api, "client-1"),
					new RateLimitCheck(this.shadow, "client-1", 1, true)));
		}
		assertThat(count("api", "allowed")).isEqualTo(10);
		assertThat(count("api", "denied")).isEqualTo(4);
		assertThat(count("shadowed", "allowed")).isEqualTo(1);
		assertThat(count("shadowed", "shadow_denied")).isEqualTo(13);
		assertThat(this.registry.get("ratelimit.deny.cache.hits").tag("rule", "api").counter().count())
			.as("denials after the first come from memory").isEqualTo(3);
		this.primary.setFailing(true);
		for (int i = 0; i < 3; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.open, "client-2"));
		}
		assertThat(count("open", "fallback_allowed")).isEqualTo(3);
		assertThat(count("open", "store_error")).isGreaterThanOrEqualTo(1).isLessThanOrEqualTo(3);
		assertThat(this.registry.get("ratelimit.store.latency").tag("result", "success").timer().count()).isEqualTo(11);
		assertThat(this.registry.get("ratelimit.store.state").tag("state", "fallback").gauge().value()).isEqualTo(1);
		assertThat(this.registry.get("ratelimit.store.state").tag("state", "redis").gauge().value()).isZero();
	}

	@Test
	void noTagCarriesAClientKey() {
		RateLimitMetrics metrics = metrics();
		for (int i = 0; i < 20; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.api, "secret-client-" + i));
		}
		this.primary.setFailing(true);
		this.limiter.evaluate(RateLimitCheck.of(this.api, "secret-client-x"));
		metrics.onResolutionFailure("api", ResolutionPart.KEY, new NumberFormatException("secret-client-y"));
		// the meters exist (a test over no meters would pass with nothing wired)
		assertThat(this.registry.getMeters().stream().map((meter) -> meter.getId().getName()).distinct())
			.contains("ratelimit.requests", "ratelimit.store.latency", "ratelimit.store.state",
					"ratelimit.key.resolution.failures");
		assertThat(count("api", "allowed")).isEqualTo(20);
		for (Meter meter : this.registry.getMeters()) {
			for (Tag tag : meter.getId().getTags()) {
				assertThat(tag.getKey()).isIn("rule", "outcome", "result", "state", "part");
				assertThat(tag.getValue()).doesNotContain("secret");
			}
		}
	}

	@Test
	void nearLimitFiresAtTheThreshold() {
		metrics();
		for (int i = 0; i < 10; i++) {
			this.limiter.evaluate(RateLimitCheck.of(this.api, "near"));
			// remaining after request i+1 is 9 - i; at most 20% of 10 = 2 remaining counts as near the limit
			double expected = Math.max(0, i - 6);
			assertThat(this.registry.find("ratelimit.near.limit").tag("rule", "api").counters().stream()
				.mapToDouble((counter) -> counter.count())
				.sum()).as("after %d requests", i + 1).isEqualTo(expected);
		}
	}

	@Test
	void everyResolutionFailureIsCountedByRuleAndPart() {
		RateLimitListener listener = RateLimitListener.composite(List.of(metrics(), RateLimitListener.NONE));
		for (int i = 0; i < 3; i++) {
			listener.onResolutionFailure("api", ResolutionPart.KEY, new IllegalStateException());
		}
		listener.onResolutionFailure("api", ResolutionPart.COST, new IllegalStateException());
		listener.onResolutionFailure("open", ResolutionPart.TIER_KEY, new IllegalStateException());
		assertThat(failures("api", "key")).isEqualTo(3);
		assertThat(failures("api", "cost")).isEqualTo(1);
		assertThat(failures("open", "tier-key")).isEqualTo(1);
		assertThat(this.registry.find("ratelimit.key.resolution.failures").counters()).hasSize(3);
	}

	private double failures(String rule, String part) {
		return this.registry.get("ratelimit.key.resolution.failures").tag("rule", rule).tag("part", part).counter()
			.count();
	}

	@Test
	void inspectionsAreNotCounted() {
		metrics();
		this.limiter.evaluate(new RateLimitCheck(this.api, "peek", 0, false));
		this.limiter.evaluate(new RateLimitCheck(this.api, "peek", 1, false));
		// only the request counts: the metrics are wired, and the inspection was left out
		assertThat(this.registry.find("ratelimit.requests").counters()).hasSize(1);
		assertThat(count("api", "allowed")).isEqualTo(1);
	}

	private double count(String rule, String outcome) {
		return this.registry.get("ratelimit.requests").tag("rule", rule).tag("outcome", outcome).counter().count();
	}


}
