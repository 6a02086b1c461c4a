package dev.ratelimit.actuate;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.StoreState;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer metrics of the limiter, tagged by rule and outcome only, never by client key:
 * <ul>
 * <li>{@code ratelimit.requests} (counter; {@code rule}, {@code outcome}: allowed, denied, shadow_denied,
 * fallback_allowed, fallback_denied, store_error), one per check; and {@code outcome} refunded, one per admitted check
 * whose units were given back when the request ended with an outcome its rule does not count ({@code count-when}),
 * which was counted as allowed before (so allowed minus refunded is what counted); and {@code outcome} fallback, one
 * per denying check of a {@code @RateLimited} call that its fallback method answered (counted as denied before);
 * and {@code outcome} deny_listed, one per request or call the deny list refused (by the rule whose subject or
 * client network it matched; no other check of it was made), and allow_listed, one per check the allow list let
 * skip its rule;</li>
 * <li>{@code ratelimit.near.limit} (counter; {@code rule}): an allowed check with at most the threshold of its limit
 * left;</li>
 * <li>{@code ratelimit.store.latency} (timer; {@code result}: success, error): calls to the shared store;</li>
 * <li>{@code ratelimit.deny.cache.hits} (counter; {@code rule}): denials answered from memory;</li>
 * <li>{@code ratelimit.store.state} (gauge; {@code state}: redis, fallback, local): 1 for the current state, else 0;</li>
 * <li>{@code ratelimit.key.resolution.failures} (counter; {@code rule}, {@code part}: key, tier-key, cost): a part of
 * a rule that could not be resolved, so the rule fell back;</li>
 * <li>for {@code concurrency} rules, in units of cost (requests, when each costs 1):
 * {@code ratelimit.concurrency.in.flight} (gauge; {@code rule}): the slots that <em>this instance's</em> leases hold
 * now, acquired and not yet released (the cap counts every instance's; add the gauges up over instances for the
 * total); {@code ratelimit.concurrency.leases.acquired} and {@code ratelimit.concurrency.leases.released} (counters;
 * {@code rule}): slots taken by admitted requests and given back when they ended; and
 * {@code ratelimit.concurrency.leases.expired} (counter; {@code rule}): expired slots that an admission reclaimed,
 * held by an instance that crashed or by a request that outlived {@code lease-timeout} without a renewal. The
 * expired count is the store's, so every instance that reclaims counts what it found, whoever held it.</li>
 * <li>{@code ratelimit.wait} (timer; {@code rule}): for each admitted request of a rule that may wait
 * ({@code max-wait}), the wait until its reserved slot (zero when it proceeded at once).</li>
 * </ul>
 */
public class RateLimitMetrics implements RateLimitListener {

	private final MeterRegistry registry;

	private final double nearLimitThreshold;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, AtomicLong> inFlight = new ConcurrentHashMap<>();
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
			if (decision.reclaimed() > 0 && !seenBefore(verdict, i)) {
				counter("ratelimit.concurrency.leases.expired", rule, null, null).increment(decision.reclaimed());
			}
			if (!check.maxWait().isZero() && check.enforced() && verdict.allowed()) {
				waitTimer(rule).record(verdict.delay());
			}
		}
		for (Lease lease : verdict.leases()) {
			String rule = lease.policy().name();
			counter("ratelimit.concurrency.leases.acquired", rule, null, null).increment(lease.slots());
			inFlight(rule).addAndGet(lease.slots());
		}
	}

	/** Returns whether a decision is the same as an earlier check's: duplicate checks are decided once. */
	private static boolean seenBefore(Verdict verdict, int index) {
		for (int i = 0; i < index; i++) {
			if (verdict.decisions().get(i) == verdict.decisions().get(index)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void onRelease(List<Lease> leases, List<Boolean> held) {
		for (int i = 0; i < leases.size(); i++) {
			Lease lease = leases.get(i);
			String rule = lease.policy().name();
			// this instance no longer holds it, whether it was still held or had expired meanwhile
			inFlight(rule).addAndGet(-lease.slots());
			if (held.get(i)) {
				counter("ratelimit.concurrency.leases.released", rule, null, null).increment(lease.slots());
			}
		}
	}

	private AtomicLong inFlight(String rule) {
		AtomicLong slots = this.inFlight.get(rule);
		if (slots == null) {
			slots = this.inFlight.computeIfAbsent(rule, (key) -> {
				AtomicLong created = new AtomicLong();
				Gauge.builder("ratelimit.concurrency.in.flight", created, AtomicLong::get)
					.description("Slots this instance's leases hold under a concurrency rule")
					.tag("rule", rule)
					.register(this.registry);
				return created;
			});
		}
		return slots;
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
	public void onRefund(List<Consumption> refunded) {
		for (Consumption consumption : refunded) {
			counter("ratelimit.requests", consumption.policy().name(), "outcome", "refunded").increment();
		}
	}

	@Override
	public void onListed(String rule, String subject, boolean denied) {
		counter("ratelimit.requests", rule, "outcome", denied ? "deny_listed" : "allow_listed").increment();
	}

	@Override
	public void onFallback(Verdict verdict) {
		for (int index : verdict.deniedIndexes()) {
			counter("ratelimit.requests", verdict.checks().get(index).policy().name(), "outcome", "fallback")
				.increment();
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
			case "ratelimit.concurrency.leases.acquired" -> "Concurrency slots taken by admitted requests";
			case "ratelimit.concurrency.leases.released" -> "Concurrency slots given back when requests ended";
			case "ratelimit.concurrency.leases.expired" -> "Expired concurrency slots reclaimed by an admission";
			default -> "Denials answered from the deny cache without a store call";
		};
	}

}
