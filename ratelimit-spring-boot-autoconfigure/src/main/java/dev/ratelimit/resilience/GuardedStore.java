package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import dev.ratelimit.Futures;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;

/**
 * The shared store behind its circuit breaker, driven by hand: every call, made with a permission the caller acquired,
 * is timed and recorded on the breaker as a success or an error (any exception: a bug or an unexpected Lettuce error
 * counts like a timeout) when its future completes, so no thread waits for it.
 */
final class GuardedStore {

	private final RateLimiter store;

	private final CircuitBreaker circuitBreaker;

	private final LongSupplier nanoTime;

	/**
	 * @param store the limiter over the shared store
	 * @param circuitBreaker the breaker around it
	 * @param nanoTime the monotonic time source
	 */
	GuardedStore(RateLimiter store, CircuitBreaker circuitBreaker, LongSupplier nanoTime) {
		this.store = store;
		this.circuitBreaker = circuitBreaker;
		this.nanoTime = nanoTime;
	}

	/**
	 * Evaluates the checks in the shared store without blocking, once the caller has acquired a permission from the
	 * breaker. The call is bounded by the store's timeout (the limiter over the store applies it); its outcome is
	 * recorded on the breaker when it completes, on the thread that completes it. A call that the caller cancels
	 * (it stopped waiting) gives its permission back without counting as a success or a failure.
	 * @param checks the checks
	 * @param listener told of the call (its latency and failure)
	 * @return the store's verdict, or a future failed with what the store failed with; cancelling it cancels the call
	 */
	CompletableFuture<Verdict> evaluateAsync(List<RateLimitCheck> checks, RateLimitListener listener) {
		long start = this.nanoTime.getAsLong();
		CompletableFuture<Verdict> call = Futures.start(() -> this.store.evaluateAsync(checks));
		CompletableFuture<Verdict> recorded = call.whenComplete((verdict, ex) -> {
			if (ex == null) {
				long elapsed = this.nanoTime.getAsLong() - start;
				this.circuitBreaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
				listener.onStoreCall(checks, Duration.ofNanos(elapsed), null);
			}
			else if (call.isCancelled()) {
				this.circuitBreaker.releasePermission();
			}
			else {
				long elapsed = this.nanoTime.getAsLong() - start;
				Throwable failure = Futures.unwrap(ex);
				this.circuitBreaker.onError(elapsed, TimeUnit.NANOSECONDS, failure);
				listener.onStoreCall(checks, Duration.ofNanos(elapsed), failure);
			}
		});
		return Futures.cancelling(recorded, call);
	}

	/**
	 * Resets a subject in the shared store, bypassing the breaker (an operator's call, which should fail loudly).
	 * @throws RuntimeException when the shared store cannot be reached
	 */
	void reset(RateLimitPolicy policy, String subject) {
		this.store.reset(policy, subject);
	}

	/** Returns the limiter leases are released in and renewed by. */
	RateLimiter leaseHolder() {
		return this.store;
	}

	CircuitBreaker circuitBreaker() {
		return this.circuitBreaker;
	}

}
