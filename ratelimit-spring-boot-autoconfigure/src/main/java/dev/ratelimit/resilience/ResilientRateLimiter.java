package dev.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.Lease;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitStore;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.StoreState;
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
 * <li>calls to the shared store go through a circuit breaker: a call that fails (error or timeout) falls back for its
 * request; after repeated failures the breaker opens and requests stop waiting on the store; probes in the background
 * (a request's checks at cost 0, which consume nothing) detect recovery, so no request ever waits on a probe, and
 * decisions return to the store by themselves;</li>
 * <li>while the store is unavailable every rule follows its {@link StoreFailureMode}: {@code local} is enforced by
 * this instance's memory, {@code allow} admits, {@code deny} rejects the request as {@link Verdict#storeUnavailable()
 * store unavailable} (503).</li>
 * </ul>
 * Who decides ({@link #state()}) is the circuit breaker's state; its changes are published to the listener
 * ({@link RateLimitListener#onStoreStateChange}) and logged at WARN, at most one outage every 10 seconds. Built by
 * {@link #builder(RateLimitStore)}.
 */
public class ResilientRateLimiter implements RateLimiter, StoreStatus, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ResilientRateLimiter.class);

	private final GuardedStore store;

	private final CircuitBreakerStoreState state;

	private final StoreProbe probe;

	private final FallbackDecider fallback;

	private final @Nullable DenyCache denyCache;

	private final RateLimitListener listener;

	ResilientRateLimiter(GuardedStore store, CircuitBreakerStoreState state, FallbackDecider fallback,
			@Nullable DenyCache denyCache, RateLimitListener listener) {
		this.store = store;
		this.state = state;
		this.probe = new StoreProbe(store);
		this.fallback = fallback;
		this.denyCache = denyCache;
		this.listener = listener;
	}

	/**
	 * Returns a builder of a limiter over a shared store, with the starter's defaults.
	 * @param store the shared store
	 * @return the builder
	 */
	public static ResilientRateLimiterBuilder builder(RateLimitStore store) {
		return new ResilientRateLimiterBuilder(store);
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
		if (this.state.state() != StoreState.REDIS) {
			// Open or half open: decide without the store at once, and let a background probe find out whether the
			// store is back. No request waits on a probe.
			this.probe.probe(checks);
			return fallBack(checks);
		}
		if (!this.store.circuitBreaker().tryAcquirePermission()) {
			return fallBack(checks);
		}
		Verdict verdict;
		try {
			verdict = this.store.evaluate(checks, this.listener);
		}
		catch (RuntimeException ex) {
			// Any failure of the shared store, even an unexpected one, falls back instead of failing the request.
			return fallBack(checks);
		}
		if (this.denyCache != null) {
			this.denyCache.remember(verdict);
		}
		this.listener.onVerdict(verdict, RateLimitListener.Source.STORE);
		return verdict;
	}

	private Verdict fallBack(List<RateLimitCheck> checks) {
		Verdict verdict = this.fallback.decide(checks);
		this.listener.onVerdict(verdict, RateLimitListener.Source.FALLBACK);
		return verdict;
	}

	/**
	 * Releases leases in the store that granted them: the fallback memory, and the shared store unless its circuit
	 * is open (a lease the shared store cannot be told about expires there after its timeout).
	 */
	@Override
	public List<Boolean> release(List<Lease> leases) {
		List<Boolean> held = inBothStores(leases, RateLimiter::release);
		if (!leases.isEmpty()) {
			this.listener.onRelease(leases, held);
		}
		return held;
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
		List<Boolean> held = new ArrayList<>(operation.apply(this.fallback.leaseHolder(), leases));
		if (this.store.circuitBreaker().getState() == CircuitBreaker.State.CLOSED) {
			try {
				List<Boolean> shared = operation.apply(this.store.leaseHolder(), leases);
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
	 * Refunds in the store that decides now: the shared store while its circuit is closed, else this instance's
	 * memory. A consumption is refunded in one store only, never in both (a refund in a store that did not count it
	 * would give away quota): only a request whose admission and end straddle a change of who decides is refunded in
	 * the other store, where it gives back at most one request's units. A refund that fails in the shared store is
	 * logged and dropped: the units stay consumed, the conservative direction. Denials of the refunded subjects that
	 * the deny cache remembers are forgotten, since the units given back may admit the next request.
	 */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		if (consumptions.isEmpty()) {
			return List.of();
		}
		if (this.denyCache != null) {
			// a denial remembered while the refunded units were held may not hold any more
			for (Consumption consumption : consumptions) {
				this.denyCache.forget(consumption.policy().name(), consumption.subject());
			}
		}
		List<Decision> decisions;
		if (this.store.circuitBreaker().getState() == CircuitBreaker.State.CLOSED) {
			try {
				decisions = this.store.leaseHolder().refund(consumptions);
			}
			catch (RuntimeException ex) {
				logger.debug("Could not refund in the shared store; the units stay consumed there", ex);
				return List.of();
			}
		}
		else {
			decisions = this.fallback.leaseHolder().refund(consumptions);
		}
		this.listener.onRefund(consumptions);
		return decisions;
	}

	/**
	 * Cancels a reservation in the store that decides now: the shared store while its circuit is closed (a failure
	 * there is logged, and the slot stays taken: the conservative direction), else the fallback memory. A
	 * reservation made in one of them just before the circuit changed is given back in the other, which may then
	 * admit one request more than its rate for each such cancellation.
	 */
	@Override
	public void cancel(Verdict verdict) {
		if (verdict.delay().isZero()) {
			return;
		}
		if (this.store.circuitBreaker().getState() != CircuitBreaker.State.CLOSED) {
			this.fallback.leaseHolder().cancel(verdict);
			return;
		}
		try {
			this.store.leaseHolder().cancel(verdict);
		}
		catch (RuntimeException ex) {
			logger.debug("Could not cancel a reservation in the shared store; its slot stays taken", ex);
		}
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
		this.store.reset(policy, subject);
	}

	/** Stops the background probe thread. */
	@Override
	public void close() {
		this.probe.close();
	}

	/** Returns who decides right now: the circuit breaker's state. */
	@Override
	public StoreState state() {
		return this.state.state();
	}

	@Override
	public CircuitBreaker.State circuitState() {
		return this.store.circuitBreaker().getState();
	}

	@Override
	public long denyCacheSize() {
		return (this.denyCache != null) ? this.denyCache.size() : 0;
	}

	/** Returns the circuit breaker around the shared store. */
	public CircuitBreaker circuitBreaker() {
		return this.store.circuitBreaker();
	}

	/** Returns the deny cache, or {@code null} when it is switched off. */
	public @Nullable DenyCache denyCache() {
		return this.denyCache;
	}

}
