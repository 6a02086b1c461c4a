package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;

import dev.ratelimit.Decision;
import dev.ratelimit.Lease;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.StoreFailureMode;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RateLimiter} that stays calm when its shared store is not:
 * <ul>
 * <li>denials with a long enough wait are remembered in a {@link DenyCache} and answered from memory;</li>
 * <li>calls to the shared store go through a circuit breaker: after repeated failures (errors or timeouts) requests
 * stop waiting on the store; probes in the background (a request's checks at cost 0, which consume nothing) detect
 * recovery, so no request ever waits on a probe, and decisions return to the store by themselves;</li>
 * <li>while the store is unavailable every rule follows its {@link StoreFailureMode}: {@code local} is enforced by
 * this instance's memory, {@code allow} admits, {@code deny} rejects the request as {@link Verdict#storeUnavailable()
 * store unavailable} (503).</li>
 * </ul>
 * Falling back and recovering are logged at WARN, at most once per {@code logInterval} for repeated failures.
 */
public class ResilientRateLimiter implements RateLimiter, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ResilientRateLimiter.class);

	private final RateLimiter primary;

	private final RateLimiter fallback;

	private final CircuitBreaker circuitBreaker;

	private final @Nullable DenyCache denyCache;

	private final Function<String, StoreFailureMode> failureModes;

	private final Duration unavailableRetryAfter;

	private final LongSupplier nanoTime;

	private final long logIntervalNanos;

	private final RateLimitListener listener;

	private final AtomicReference<StoreState> state = new AtomicReference<>(StoreState.REDIS);

	private final AtomicBoolean probing = new AtomicBoolean();

	private final ExecutorService probes = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "ratelimit-store-probe");
		thread.setDaemon(true);
		return thread;
	});

	private final AtomicLong fallbackSinceNanos = new AtomicLong();

	private final AtomicLong lastWarningNanos = new AtomicLong(Long.MIN_VALUE / 2);

	/**
	 * @param primary the limiter over the shared store
	 * @param fallback the limiter over this instance's memory
	 * @param circuitBreaker the breaker around the shared store
	 * @param denyCache the deny cache, or {@code null} for none
	 * @param failureModes the failure mode of each rule, by policy name
	 * @param unavailableRetryAfter the {@code Retry-After} of requests that fail closed
	 * @param nanoTime the monotonic time source
	 * @param logInterval the least time between two warnings about the same outage
	 * @param listener told of every verdict and store call
	 */
	public ResilientRateLimiter(RateLimiter primary, RateLimiter fallback, CircuitBreaker circuitBreaker,
			@Nullable DenyCache denyCache, Function<String, StoreFailureMode> failureModes,
			Duration unavailableRetryAfter, LongSupplier nanoTime, Duration logInterval, RateLimitListener listener) {
		this.primary = primary;
		this.fallback = fallback;
		this.circuitBreaker = circuitBreaker;
		this.denyCache = denyCache;
		this.failureModes = failureModes;
		this.unavailableRetryAfter = unavailableRetryAfter;
		this.nanoTime = nanoTime;
		this.logIntervalNanos = logInterval.toNanos();
		this.listener = listener;
	}

	@Override
	public Verdict evaluate(List<RateLimitCheck> checks) {
		if (checks.isEmpty()) {
			return new Verdict(List.of(), List.of());
		}
		if (this.denyCache != null) {
			Verdict remembered = this.denyCache.get(checks);
			if (remembered != null) {
				this.listener.onVerdict(remembered, RateLimitListener.Source.DENY_CACHE);
				return remembered;
			}
		}
		if (this.circuitBreaker.getState() != CircuitBreaker.State.CLOSED) {
			// Open or half open: decide without the store at once, and let a background probe (the same checks at
			// cost 0, which consume nothing) find out whether the store is back. No request waits on a probe.
			probe(checks);
			return fallBack(checks);
		}
		if (!this.circuitBreaker.tryAcquirePermission()) {
			return fallBack(checks);
		}
		long start = this.nanoTime.getAsLong();
		Verdict verdict;
		try {
			verdict = this.primary.evaluate(checks);
		}
		catch (RuntimeException ex) {
			// Any failure of the shared store, even an unexpected one, falls back instead of failing the request.
			long elapsed = this.nanoTime.getAsLong() - start;
			this.circuitBreaker.onError(elapsed, TimeUnit.NANOSECONDS, ex);
			this.listener.onStoreCall(checks, Duration.ofNanos(elapsed), ex);
			enterFallback(ex);
			return fallBack(checks);
		}
		long elapsed = this.nanoTime.getAsLong() - start;
		this.circuitBreaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
		this.listener.onStoreCall(checks, Duration.ofNanos(elapsed), null);
		if (this.circuitBreaker.getState() == CircuitBreaker.State.CLOSED) {
			recovered();
		}
		if (this.denyCache != null) {
			this.denyCache.remember(verdict);
		}
		this.listener.onVerdict(verdict, RateLimitListener.Source.STORE);
		return verdict;
	}

	private void probe(List<RateLimitCheck> checks) {
		if (!this.probing.compareAndSet(false, true)) {
			return;
		}
		if (!this.circuitBreaker.tryAcquirePermission()) {
			// still open: the wait has not ended yet
			this.probing.set(false);
			return;
		}
		List<RateLimitCheck> inspections = checks.stream()
			.map((check) -> new RateLimitCheck(check.policy(), check.subject(), 0, check.shadow()))
			.toList();
		try {
			this.probes.execute(() -> {
				long start = this.nanoTime.getAsLong();
				try {
					this.primary.evaluate(inspections);
					this.circuitBreaker.onSuccess(this.nanoTime.getAsLong() - start, TimeUnit.NANOSECONDS);
					if (this.circuitBreaker.getState() == CircuitBreaker.State.CLOSED) {
						recovered();
					}
				}
				catch (RuntimeException ex) {
					this.circuitBreaker.onError(this.nanoTime.getAsLong() - start, TimeUnit.NANOSECONDS, ex);
					enterFallback(ex);
				}
				finally {
					this.probing.set(false);
				}
			});
		}
		catch (RejectedExecutionException ex) {
			this.circuitBreaker.releasePermission();
			this.probing.set(false);
		}
	}

	/** Stops the background probe thread. */
	@Override
	public void close() {
		this.probes.shutdownNow();
	}

	/**
	 * Releases leases in the store that granted them: the fallback memory, and the shared store unless its circuit
	 * is open (a lease the shared store cannot be told about expires there after its timeout).
	 */
	@Override
	public List<Boolean> release(List<Lease> leases) {
		return inBothStores(leases, RateLimiter::release);
	}

	/** Renews leases in the store that granted them, as {@link #release} does. */
	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return inBothStores(leases, RateLimiter::renew);
	}

	/**
	 * Applies a lease operation in the fallback memory and, while its circuit is closed, the shared store: a lease
	 * is held in at most one of them (ids are unique per store), the other answers that it is not held there.
	 */
	private List<Boolean> inBothStores(List<Lease> leases,
			BiFunction<RateLimiter, List<Lease>, List<Boolean>> operation) {
		if (leases.isEmpty()) {
			return List.of();
		}
		List<Boolean> held = new ArrayList<>(operation.apply(this.fallback, leases));
		if (this.circuitBreaker.getState() == CircuitBreaker.State.CLOSED) {
			try {
				List<Boolean> shared = operation.apply(this.primary, leases);
				for (int i = 0; i < held.size(); i++) {
					held.set(i, held.get(i) || shared.get(i));
				}
			}
			catch (RuntimeException ex) {
				logger.debug("Could not release or renew leases in the shared store; they expire there", ex);
			}
		}
		return held;
	}

	/**
	 * Resets a subject in the shared store (when reachable), in the fallback memory and in the deny cache.
	 * @throws RuntimeException when the shared store cannot be reached
	 */
	@Override
	public void reset(RateLimitPolicy policy, String subject) {
		if (this.denyCache != null) {
			this.denyCache.forget(policy.name(), subject);
		}
		this.fallback.reset(policy, subject);
		this.primary.reset(policy, subject);
	}

	/** Returns who decides right now. */
	public StoreState state() {
		return this.state.get();
	}

	/** Returns the circuit breaker around the shared store. */
	public CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

	/** Returns the deny cache, or {@code null} when it is switched off. */
	public @Nullable DenyCache denyCache() {
		return this.denyCache;
	}

	private Verdict fallBack(List<RateLimitCheck> checks) {
		List<Integer> local = new ArrayList<>();
		boolean failClosed = false;
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			StoreFailureMode mode = this.failureModes.apply(check.policy().name());
			if (mode == StoreFailureMode.DENY && check.enforced()) {
				failClosed = true;
			}
			else if (mode == StoreFailureMode.LOCAL || mode == StoreFailureMode.DENY) {
				local.add(i);
			}
		}
		Decision[] decisions = new Decision[checks.size()];
		if (failClosed) {
			for (int i = 0; i < checks.size(); i++) {
				RateLimitCheck check = checks.get(i);
				boolean closes = check.enforced() && this.failureModes.apply(check.policy().name()) == StoreFailureMode.DENY;
				decisions[i] = closes ? new Decision(false, check.policy().limit(), 0, Duration.ZERO,
						this.unavailableRetryAfter) : unknown(check);
			}
			return observedFallback(new Verdict(checks, List.of(decisions), true));
		}
		if (!local.isEmpty()) {
			List<RateLimitCheck> localChecks = local.stream().map(checks::get).toList();
			List<Decision> localDecisions = this.fallback.evaluate(localChecks).decisions();
			for (int j = 0; j < local.size(); j++) {
				decisions[local.get(j)] = localDecisions.get(j);
			}
		}
		for (int i = 0; i < checks.size(); i++) {
			if (decisions[i] == null) {
				decisions[i] = unknown(checks.get(i));
			}
		}
		return observedFallback(new Verdict(checks, List.of(decisions)));
	}

	private Verdict observedFallback(Verdict verdict) {
		this.listener.onVerdict(verdict, RateLimitListener.Source.FALLBACK);
		return verdict;
	}

	/** The decision of a check that nothing evaluated (fail-open, or not reached): admitted, full quota. */
	private static Decision unknown(RateLimitCheck check) {
		return new Decision(true, check.policy().limit(), check.policy().limit(), Duration.ZERO, Duration.ZERO);
	}

	private void enterFallback(@Nullable RuntimeException cause) {
		long now = this.nanoTime.getAsLong();
		boolean entered = this.state.compareAndSet(StoreState.REDIS, StoreState.FALLBACK);
		if (entered) {
			this.fallbackSinceNanos.set(now);
		}
		long last = this.lastWarningNanos.get();
		if ((entered || now - last >= this.logIntervalNanos) && this.lastWarningNanos.compareAndSet(last, now)
				&& logger.isWarnEnabled()) {
			String reason = (cause != null) ? cause.getMessage() : "circuit breaker is " + this.circuitBreaker.getState();
			logger.warn((entered ? "Rate limit store unavailable (" : "Rate limit store still unavailable (") + reason
					+ "); rules follow their on-store-failure mode (local, allow or deny)");
		}
	}

	private void recovered() {
		if (this.state.get() == StoreState.FALLBACK && this.state.compareAndSet(StoreState.FALLBACK, StoreState.REDIS)) {
			Duration outage = Duration.ofNanos(this.nanoTime.getAsLong() - this.fallbackSinceNanos.get());
			logger.warn("Rate limit store recovered after " + outage.toMillis() + " ms; decisions come from it again");
			this.lastWarningNanos.set(Long.MIN_VALUE / 2);
		}
	}

}
