package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.StoreState;
import dev.ratelimit.Verdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer metrics of the limiter, tagged by rule and outcome only, never by client key:
 * <ul>
 * <li>{@code ratelimit.requests} (counter; {@code rule}, {@code outcome}: allowed, denied, shadow_denied,
 * fallback_allowed, fallback_denied, store_error), one per check;</li>
 * <li>{@code ratelimit.near.limit} (counter; {@code rule}): an allowed check with at most the threshold of its limit
 * left;</li>
 * <li>{@code ratelimit.store.latency} (timer; {@code result}: success, error): calls to the shared store;</li>
 * <li>{@code ratelimit.deny.cache.hits} (counter; {@code rule}): denials answered from memory;</li>
 * <li>{@code ratelimit.store.state} (gauge; {@code state}: redis, fallback, local): 1 for the current state, else 0;</li>
 * <li>{@code ratelimit.key.resolution.failures} (counter; {@code rule}, {@code part}: key, tier-key, cost): a part of
 * a rule that could not be resolved, so the rule fell back;</li>
 * <li>{@code ratelimit.wait} (timer; {@code rule}): for each admitted request of a rule that may wait
 * ({@code max-wait}), the wait until its reserved slot (zero when it proceeded at once).</li>
 * </ul>
 */
public class RateLimitMetrics implements RateLimitListener {

	private final MeterRegistry registry;

	private final double nearLimitThreshold;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> waits = new ConcurrentHashMap<>();

	private final Timer storeSuccess;

	private final Timer storeError;

	/**
	 * @param registry the registry
	 * @param nearLimitThreshold the fraction of the limit at or below which an allowed check counts as near the limit
	 * @param state who decides right now, read at each gauge read
	 */
	public RateLimitMetrics(MeterRegistry registry, double nearLimitThreshold, Supplier<StoreState> state) {
		this.registry = registry;
		this.nearLimitThreshold = nearLimitThreshold;
		this.storeSuccess = storeTimer("success");
		this.storeError = storeTimer("error");
		for (StoreState each : StoreState.values()) {
			Gauge.builder("ratelimit.store.state", () -> (state.get() == each) ? 1 : 0)
				.description("Who decides: 1 for the current state")
				.tag("state", each.name().toLowerCase(Locale.ROOT))
				.register(registry);
		}
	}

	private Timer storeTimer(String result) {
		return Timer.builder("ratelimit.store.latency")
			.description("Latency of calls to the shared rate limit store")
			.tag("result", result)
			.register(this.registry);
	}

	@Override
	public void onVerdict(Verdict verdict, Source source) {
		for (int i = 0; i < verdict.checks().size(); i++) {
			RateLimitCheck check = verdict.checks().get(i);
			if (check.cost() == 0) {
				// an inspection (e.g. by the actuator endpoint), not a request
				continue;
			}
			Decision decision = verdict.decisions().get(i);
			String rule = check.policy().name();
			String outcome;
			if (source == Source.FALLBACK) {
				outcome = decision.allowed() ? "fallback_allowed" : "fallback_denied";
			}
			else if (check.shadow()) {
				outcome = decision.allowed() ? "allowed" : "shadow_denied";
			}
			else {
				outcome = decision.allowed() ? "allowed" : "denied";
			}
			counter("ratelimit.requests", rule, "outcome", outcome).increment();
			if (source == Source.DENY_CACHE && !decision.allowed()) {
				counter("ratelimit.deny.cache.hits", rule, null, null).increment();
			}
			if (decision.allowed() && check.enforced() && check.cost() > 0
					&& decision.remaining() <= this.nearLimitThreshold * decision.limit()) {
				counter("ratelimit.near.limit", rule, null, null).increment();
			}
			if (!check.maxWait().isZero() && check.enforced() && verdict.allowed()) {
				waitTimer(rule).record(verdict.delay());
			}
		}
	}

	private Timer waitTimer(String rule) {
		Timer timer = this.waits.get(rule);
		return (timer != null) ? timer : this.waits.computeIfAbsent(rule, (name) -> Timer.builder("ratelimit.wait")
			.description("Wait of admitted requests until their reserved slot")
			.tag("rule", name)
			.register(this.registry));
	}

	@Override
	public void onStoreCall(List<RateLimitCheck> checks, Duration latency, @Nullable Throwable failure) {
		((failure != null) ? this.storeError : this.storeSuccess).record(latency);
		if (failure != null) {
			for (RateLimitCheck check : checks) {
				counter("ratelimit.requests", check.policy().name(), "outcome", "store_error").increment();
			}
		}
	}

	@Override
	public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
		counter("ratelimit.key.resolution.failures", rule, "part", part.propertyName()).increment();
	}

	private Counter counter(String name, String rule, @Nullable String tag, @Nullable String value) {
		String id = name + '\u0000' + rule + '\u0000' + value;
		Counter counter = this.counters.get(id);
		if (counter == null) {
			counter = this.counters.computeIfAbsent(id, (key) -> {
				Counter.Builder builder = Counter.builder(name).description(description(name)).tag("rule", rule);
				if (tag != null && value != null) {
					builder.tag(tag, value);
				}
				return builder.register(this.registry);
			});
		}
		return counter;
	}

	private static String description(String name) {
		return switch (name) {
			case "ratelimit.requests" -> "Rate limit checks by rule and outcome";
			case "ratelimit.near.limit" -> "Allowed checks with little of their limit left";
			case "ratelimit.key.resolution.failures" -> "Rule parts that could not be resolved, so the rule fell back";
			default -> "Denials answered from the deny cache without a store call";
		};
	}

}
