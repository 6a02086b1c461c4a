package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.ratelimit.Futures;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * The shared store behind its circuit breakers, driven by hand: every call, made with a permission the caller
 * acquired from the breaker of each node it is sent to (one for a store on one server), is timed and recorded when
 * its future completes, so no thread waits for it: a success on every breaker; a failure (any exception: a bug or an
 * unexpected Lettuce error counts like a timeout) as an error on the breakers of the nodes it is blamed on (see
 * {@link StoreGuards#blame}), while the others give their permission back.
 */
final class GuardedStore {

	private final RateLimiter store;

	private final StoreGuards guards;

	private final LongSupplier nanoTime;

	/**
	 * @param store the limiter over the shared store
	 * @param guards the breakers around it
	 * @param nanoTime the monotonic time source
	 */
	GuardedStore(RateLimiter store, StoreGuards guards, LongSupplier nanoTime) {
		this.store = store;
		this.guards = guards;
		this.nanoTime = nanoTime;
	}

	/**
	 * Evaluates the checks in the shared store without blocking, once the caller has acquired a permission from the
	 * breakers. The call is bounded by the store's timeout (the limiter over the store applies it); its outcome is
	 * recorded on the breakers when it completes, on the thread that completes it. A call that the caller cancels
	 * (it stopped waiting) gives its permissions back without counting as a success or a failure.
	 * @param permitted the guards whose permissions were acquired
	 * @param checks the checks
	 * @param listener told of the call (its latency and failure)
	 * @return the store's verdict, or a future failed with what the store failed with; cancelling it cancels the call
	 */
	CompletableFuture<Verdict> evaluateAsync(List<NodeGuard> permitted, List<RateLimitCheck> checks,
			RateLimitListener listener) {
		long start = this.nanoTime.getAsLong();
		CompletableFuture<Verdict> call = Futures.start(() -> this.store.evaluateAsync(checks));
		CompletableFuture<Verdict> recorded = call.whenComplete((verdict, ex) -> {
			if (ex != null && call.isCancelled()) {
				permitted.forEach((guard) -> guard.circuitBreaker().releasePermission());
			}
			else {
				record(permitted, checks, listener, start, (ex != null) ? Futures.unwrap(ex) : null);
			}
		});
		return Futures.cancelling(recorded, call);
	}

	/**
	 * Evaluates the checks in the shared store through its blocking form (for Redis, a wait on its non-blocking call
	 * bounded by its timeout), once the caller has acquired a permission from the breakers.
	 * @param permitted the guards whose permissions were acquired
	 * @param checks the checks
	 * @param listener told of the call (its latency and failure)
	 * @return the store's verdict
	 * @throws RuntimeException what the store threw, after recording it on the breakers
	 */
	Verdict evaluate(List<NodeGuard> permitted, List<RateLimitCheck> checks, RateLimitListener listener) {
		long start = this.nanoTime.getAsLong();
		Verdict verdict;
		try {
			verdict = this.store.evaluate(checks);
		}
		catch (RuntimeException ex) {
			record(permitted, checks, listener, start, ex);
			throw ex;
		}
		record(permitted, checks, listener, start, null);
		return verdict;
	}

	/** Records a call's outcome on the breakers and tells the listener. */
	private void record(List<NodeGuard> permitted, List<RateLimitCheck> checks, RateLimitListener listener,
			long start, @Nullable Throwable failure) {
		long elapsed = this.nanoTime.getAsLong() - start;
		if (failure == null) {
			for (NodeGuard guard : permitted) {
				guard.circuitBreaker().onSuccess(elapsed, TimeUnit.NANOSECONDS);
			}
		}
		else {
			Set<NodeGuard> blamed = this.guards.blame(failure, permitted);
			for (NodeGuard guard : permitted) {
				if (blamed.contains(guard)) {
					guard.circuitBreaker().onError(elapsed, TimeUnit.NANOSECONDS, failure);
				}
				else {
					guard.circuitBreaker().releasePermission();
				}
			}
		}
		listener.onStoreCall(checks, Duration.ofNanos(elapsed), failure);
	}

	/**
	 * Resets a subject in the shared store, bypassing the breakers (an operator's call, which should fail loudly).
	 * @throws RuntimeException when the shared store cannot be reached
	 */
	void reset(RateLimitPolicy policy, String subject) {
		this.store.reset(policy, subject);
	}

	/** Returns the limiter leases are released in and renewed by. */
	RateLimiter leaseHolder() {
		return this.store;
	}

	StoreGuards guards() {
		return this.guards;
	}

}
