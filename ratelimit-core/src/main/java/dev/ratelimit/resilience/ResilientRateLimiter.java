package dev.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.Futures;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreState;
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
 * ({@link RateLimitListener#onStoreStateChange}) and logged at WARN, at most one outage every 10 seconds. For a store
 * whose nodes fail independently (a Redis Cluster, see {@link RateLimitStore#nodes()}) every master has its own
 * breaker: a request goes through the breakers of the masters serving its keys and falls back when one of them is
 * open, so that one master's failure sends only the requests touching its keys to the fallback
 * ({@link StoreState#PARTIAL}). Built by {@link #builder(RateLimitStore)}.
 */
public class ResilientRateLimiter implements RateLimiter, StoreStatus, AutoCloseable {

	private static final Log logger = LogFactory.getLog(ResilientRateLimiter.class);

	private final GuardedStore store;

	private final StoreGuards guards;

	private final StoreProbe probe;

	private final FallbackDecider fallback;

	private final @Nullable DenyCache denyCache;

	private final RateLimitListener listener;

	ResilientRateLimiter(GuardedStore store, FallbackDecider fallback, @Nullable DenyCache denyCache,
			RateLimitListener listener) {
		this.store = store;
		this.guards = store.guards();
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

	/**
	 * The same decisions as {@link #evaluateAsync}, with the store's call made through its blocking form: for the Redis
	 * store a wait on its non-blocking call bounded by its timeout, which gives the call up when the timeout ends
	 * (the waiting thread is the timer: no timeout is scheduled). The verdict, the deny cache and the listener run on
	 * the calling thread, as before the non-blocking path existed.
	 */
	@Override
	public Verdict evaluate(List<RateLimitCheck> checks) {
		Verdict immediate = remembered(checks);
		if (immediate != null) {
			return immediate;
		}
		List<NodeGuard> permitted = permitted(checks);
		if (permitted == null) {
			return fallBack(checks);
		}
		Verdict verdict;
		try {
			verdict = this.store.evaluate(permitted, checks, this.listener);
		}
		catch (RuntimeException ex) {
			// Any failure of the shared store, even an unexpected one, falls back instead of failing the request.
			return fallBack(checks);
		}
		return fromStore(verdict);
	}

	/**
	 * Evaluates without blocking a thread. The deny cache, the breaker's state and the fallback answer at once, on
	 * the calling thread (they are in memory); a call to the shared store returns its future at once and completes it
	 * when the store answers (on the Redis client's event loop) or when the store's timeout ends (on the timeout's
	 * thread), with the fallback's verdict if the call failed. Callbacks on the future, and the listener, run on that
	 * thread: they must not block. Cancelling the future gives up the store call.
	 */
	@Override
	public CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks) {
		Verdict immediate;
		List<NodeGuard> permitted;
		try {
			immediate = remembered(checks);
			permitted = (immediate != null) ? null : permitted(checks);
			if (immediate == null && permitted == null) {
				immediate = fallBack(checks);
			}
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (immediate != null) {
			return CompletableFuture.completedFuture(immediate);
		}
		CompletableFuture<Verdict> call = this.store.evaluateAsync(permitted, checks, this.listener);
		// Any failure of the shared store, even an unexpected one, falls back instead of failing the request.
		return Futures.cancelling(call.handle((verdict, ex) -> (ex != null) ? fallBack(checks) : fromStore(verdict)),
				call);
	}

	/**
	 * Decides from memory when it can without the breakers: no checks, or a remembered denial.
	 * @return the verdict, or {@code null} when the breakers have a say
	 */
	private @Nullable Verdict remembered(List<RateLimitCheck> checks) {
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
		return null;
	}

	/**
	 * Acquires a permission from the breaker of every node serving the checks' keys (one for a store on one server).
	 * @return the guards whose permissions were acquired, or {@code null} when the request falls back: a node's
	 * breaker is open or half open, or refused a permission
	 */
	private @Nullable List<NodeGuard> permitted(List<RateLimitCheck> checks) {
		List<NodeGuard> guards = this.guards.guardsFor(checks);
		for (NodeGuard guard : guards) {
			if (guard.state() != StoreState.REDIS) {
				// Open or half open: decide without the store at once, and let a background probe find out whether
				// the node is back. No request waits on a probe.
				this.probe.probe(guards, checks);
				return null;
			}
		}
		for (int i = 0; i < guards.size(); i++) {
			if (!guards.get(i).circuitBreaker().tryAcquirePermission()) {
				for (int j = 0; j < i; j++) {
					guards.get(j).circuitBreaker().releasePermission();
				}
				return null;
			}
		}
		return guards;
	}

	private Verdict fromStore(Verdict verdict) {
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
	 * is open (a lease the shared store cannot be told about expires there after its timeout). The shared store is
	 * called through its blocking form, bounded by its timeout, as {@link #evaluate} does.
	 */
	@Override
	public List<Boolean> release(List<Lease> leases) {
		return Futures.await(release(leases, (limiter, held) -> RateLimitStore.now(() -> limiter.release(held))));
	}

	/**
	 * {@link #release} without blocking: the fallback memory at once, the shared store when it answers (or its
	 * timeout ends: the lease then expires there).
	 */
	@Override
	public CompletableFuture<List<Boolean>> releaseAsync(List<Lease> leases) {
		return release(leases, RateLimiter::releaseAsync);
	}

	private CompletableFuture<List<Boolean>> release(List<Lease> leases, LeaseOperation operation) {
		if (leases.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		return inBothStores(leases, operation).thenApply((held) -> {
			this.listener.onRelease(leases, held);
			return held;
		});
	}

	/** Renews leases in the store that granted them, as {@link #release} does. */
	@Override
	public List<Boolean> renew(List<Lease> leases) {
		return Futures.await(inBothStores(leases, (limiter, held) -> RateLimitStore.now(() -> limiter.renew(held))));
	}

	/** {@link #renew} without blocking, as {@link #releaseAsync} does. */
	@Override
	public CompletableFuture<List<Boolean>> renewAsync(List<Lease> leases) {
		return inBothStores(leases, RateLimiter::renewAsync);
	}

	/**
	 * Applies a lease operation in the fallback memory and, while its circuit is closed, the shared store: a lease
	 * is held in at most one of them (ids are unique per store), the other answers that it is not held there. A
	 * failure of the shared store is logged and answered as not held there.
	 */
	private CompletableFuture<List<Boolean>> inBothStores(List<Lease> leases, LeaseOperation operation) {
		if (leases.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		List<Boolean> local;
		try {
			local = Futures.await(operation.apply(this.fallback.leaseHolder(), leases));
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		if (!this.guards.closed(leases.stream().map((lease) -> RateLimitCheck.of(lease.policy(), lease.subject()))
			.toList())) {
			return CompletableFuture.completedFuture(local);
		}
		return Futures.start(() -> operation.apply(this.store.leaseHolder(), leases)).handle((shared, ex) -> {
			if (ex != null) {
				logger.debug("Could not release or renew leases in the shared store; they expire there", ex);
				return local;
			}
			List<Boolean> held = new ArrayList<>(local);
			for (int i = 0; i < held.size(); i++) {
				held.set(i, held.get(i) || shared.get(i));
			}
			return held;
		});
	}

	/**
	 * Refunds in the store that decides now: the shared store while its circuit is closed, else this instance's
	 * memory. A consumption is refunded in one store only, never in both (a refund in a store that did not count it
	 * would give away quota): only a request whose admission and end straddle a change of who decides is refunded in
	 * the other store, where it gives back at most one request's units. A refund that fails in the shared store is
	 * logged and dropped: the units stay consumed, the conservative direction. Denials of the refunded subjects that
	 * the deny cache remembers are forgotten, since the units given back may admit the next request. The shared store
	 * is called through its blocking form, bounded by its timeout.
	 */
	@Override
	public List<Decision> refund(List<Consumption> consumptions) {
		return Futures.await(refund(consumptions, (limiter, given) -> RateLimitStore.now(() -> limiter.refund(given))));
	}

	/** {@link #refund} without blocking: the future completes when the store that decides has refunded. */
	@Override
	public CompletableFuture<List<Decision>> refundAsync(List<Consumption> consumptions) {
		return refund(consumptions, RateLimiter::refundAsync);
	}

	private CompletableFuture<List<Decision>> refund(List<Consumption> consumptions,
			BiFunction<RateLimiter, List<Consumption>, CompletableFuture<List<Decision>>> operation) {
		return inDecidingStore(consumptions, (consumption) -> consumption, operation, this.listener::onRefund,
				"Could not refund in the shared store; the units stay consumed there");
	}

	/**
	 * Settles in the store that decides now, as {@link #refund} refunds: the shared store while its circuit is closed,
	 * else this instance's memory (a request admitted just before the circuit changed is settled in the other store:
	 * its charge or refund there is at most one request's difference). A settlement that fails in the shared store is
	 * logged and dropped: a refund's units stay consumed (the conservative direction), a charge's are not counted,
	 * which the WARN says. Denials of the settled subjects that the deny cache remembers are forgotten.
	 */
	@Override
	public List<Decision> settle(List<Settlement> settlements) {
		return Futures.await(settle(settlements, (limiter, given) -> RateLimitStore.now(() -> limiter.settle(given))));
	}

	/** {@link #settle} without blocking: the future completes when the store that decides has settled. */
	@Override
	public CompletableFuture<List<Decision>> settleAsync(List<Settlement> settlements) {
		return settle(settlements, RateLimiter::settleAsync);
	}

	private CompletableFuture<List<Decision>> settle(List<Settlement> settlements,
			BiFunction<RateLimiter, List<Settlement>, CompletableFuture<List<Decision>>> operation) {
		boolean charges = settlements.stream().anyMatch((settlement) -> settlement.charged() > 0);
		return inDecidingStore(settlements, Settlement::consumption, operation, this.listener::onSettle,
				charges ? null : "Could not settle in the shared store; the units reserved stay consumed there");
	}

	/**
	 * Gives back or charges in the store that decides now, forgetting the deny cache's denials of the subjects; a
	 * failure in the shared store is logged (at DEBUG with {@code lostMessage}, or at WARN when it is {@code null}:
	 * units were not charged) and answers no decisions.
	 */
	private <T> CompletableFuture<List<Decision>> inDecidingStore(List<T> items, Function<T, Consumption> consumption,
			BiFunction<RateLimiter, List<T>, CompletableFuture<List<Decision>>> operation, Consumer<List<T>> told,
			@Nullable String lostMessage) {
		if (items.isEmpty()) {
			return CompletableFuture.completedFuture(List.of());
		}
		if (this.denyCache != null) {
			// a denial remembered while the units were held may not hold any more
			for (T item : items) {
				this.denyCache.forget(consumption.apply(item).policy().name(), consumption.apply(item).subject());
			}
		}
		if (!this.guards.closed(items.stream()
			.map((item) -> RateLimitCheck.of(consumption.apply(item).policy(), consumption.apply(item).subject()))
			.toList())) {
			return Futures.start(() -> operation.apply(this.fallback.leaseHolder(), items)).thenApply((decisions) -> {
				told.accept(items);
				return decisions;
			});
		}
		return Futures.start(() -> operation.apply(this.store.leaseHolder(), items)).handle((decisions, ex) -> {
			if (ex != null) {
				if (lostMessage != null) {
					logger.debug(lostMessage, ex);
				}
				else {
					logger.warn("Could not settle in the shared store; the units charged after the response are not "
							+ "counted there: " + ex.getMessage());
				}
				return List.of();
			}
			told.accept(items);
			return decisions;
		});
	}

	/**
	 * Cancels a reservation in the store that decides now: the shared store while its circuit is closed (a failure
	 * there is logged, and the slot stays taken: the conservative direction), else the fallback memory. A
	 * reservation made in one of them just before the circuit changed is given back in the other, which may then
	 * admit one request more than its rate for each such cancellation. The shared store is called through its
	 * blocking form, bounded by its timeout.
	 */
	@Override
	public void cancel(Verdict verdict) {
		Futures.await(cancel(verdict, (limiter, reserved) -> RateLimitStore.now(() -> {
			limiter.cancel(reserved);
			return null;
		})));
	}

	/** {@link #cancel} without blocking: the future completes when the store that decides has given the slot back. */
	@Override
	public CompletableFuture<Void> cancelAsync(Verdict verdict) {
		return cancel(verdict, RateLimiter::cancelAsync);
	}

	private CompletableFuture<Void> cancel(Verdict verdict,
			BiFunction<RateLimiter, Verdict, CompletableFuture<Void>> operation) {
		if (verdict.delay().isZero()) {
			return CompletableFuture.completedFuture(null);
		}
		if (!this.guards.closed(verdict.checks())) {
			return Futures.start(() -> operation.apply(this.fallback.leaseHolder(), verdict));
		}
		return Futures.start(() -> operation.apply(this.store.leaseHolder(), verdict)).handle((done, ex) -> {
			if (ex != null) {
				logger.debug("Could not cancel a reservation in the shared store; its slot stays taken", ex);
			}
			return null;
		});
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

	/**
	 * Returns who decides right now: the circuit breaker's state; in a Redis Cluster, {@link StoreState#PARTIAL}
	 * while the breakers of some masters (not all) are open or half open.
	 */
	@Override
	public StoreState state() {
		return this.guards.state();
	}

	/** Returns the circuit breaker's state; in a Redis Cluster, that of the least available master's breaker. */
	@Override
	public CircuitBreaker.State circuitState() {
		return this.guards.circuitState();
	}

	/** Returns who decides for each master of a Redis Cluster, by node id; empty for a store on one server. */
	@Override
	public Map<String, StoreNodeStatus> nodes() {
		return this.guards.nodeStatus();
	}

	@Override
	public long denyCacheSize() {
		return (this.denyCache != null) ? this.denyCache.size() : 0;
	}

	/**
	 * Returns the circuit breaker around the shared store.
	 * @throws IllegalStateException for a Redis Cluster, whose masters have a breaker each (see
	 * {@link #circuitBreakers()})
	 */
	public CircuitBreaker circuitBreaker() {
		CircuitBreaker breaker = this.guards.singleBreaker();
		if (breaker == null) {
			throw new IllegalStateException("Every master of the Redis Cluster has its own circuit breaker: see"
					+ " circuitBreakers()");
		}
		return breaker;
	}

	/**
	 * Returns the circuit breakers around the shared store, by node id: in a Redis Cluster, those of the masters that
	 * requests have touched and that still serve keys; for a store on one server, its one breaker under {@code ""}.
	 */
	public Map<String, CircuitBreaker> circuitBreakers() {
		return this.guards.circuitBreakers();
	}

	/** Returns the deny cache, or {@code null} when it is switched off. */
	public @Nullable DenyCache denyCache() {
		return this.denyCache;
	}

	/** A lease operation on one of the two stores: blocking (completed when it returns) or not. */
	private interface LeaseOperation extends BiFunction<RateLimiter, List<Lease>, CompletableFuture<List<Boolean>>> {

	}

}
