package dev.ratelimit;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * Waits for the slot of a request admitted with a {@link Verdict#delay() delay}: by parking the calling thread, or
 * with a future completed by a timer. A wait that is given up cancels the reservation (without waiting for the store
 * when the wait was a future).
 */
final class DelayedAdmission {

	private DelayedAdmission() {
	}

	/**
	 * Blocks until the verdict's slot.
	 * @param limiter the limiter that decided, which cancels the reservation when the wait is interrupted
	 * @param verdict the verdict
	 * @return the verdict, once its slot has come
	 * @throws CancellationException when interrupted (the reservation cancelled, the interrupt status kept)
	 */
	static Verdict await(RateLimiter limiter, Verdict verdict) {
		long delay = verdict.delay().toNanos();
		if (delay <= 0) {
			return verdict;
		}
		long deadline = System.nanoTime() + delay;
		for (long left = delay; left > 0; left = deadline - System.nanoTime()) {
			LockSupport.parkNanos(left);
			if (Thread.currentThread().isInterrupted()) {
				// without waiting: an interrupted thread could not wait for the store
				limiter.cancelAsync(verdict);
				throw new CancellationException("Interrupted while waiting for a reserved rate limit slot");
			}
		}
		return verdict;
	}

	/**
	 * Returns a future that completes with {@code value} at the verdict's slot (at once without a delay); cancelling
	 * it first cancels the reservation.
	 * @param limiter the limiter that decided
	 * @param verdict the verdict
	 * @param value the value to complete with
	 * @param <T> the value's type
	 * @return the future
	 */
	static <T> CompletableFuture<T> atSlot(RateLimiter limiter, Verdict verdict, T value) {
		long delay = verdict.delay().toNanos();
		if (delay <= 0) {
			return CompletableFuture.completedFuture(value);
		}
		CompletableFuture<T> slot = new CompletableFuture<>();
		CompletableFuture.delayedExecutor(delay, TimeUnit.NANOSECONDS).execute(() -> slot.complete(value));
		slot.whenComplete((done, ex) -> {
			if (slot.isCancelled()) {
				// on the thread that cancels: without waiting for the store (a failure leaves the slot taken)
				limiter.cancelAsync(verdict);
			}
		});
		return slot;
	}

	/**
	 * Returns a future that completes with a value of the verdict at its slot, once the evaluation has given the
	 * verdict; cancelling it cancels the evaluation (which gives up its store call) or, once the verdict is known,
	 * the reservation.
	 * @param limiter the limiter that decides
	 * @param evaluation the evaluation under way
	 * @param value the value of the verdict to complete with
	 * @param <T> the value's type
	 * @return the future
	 */
	static <T> CompletableFuture<T> afterEvaluation(RateLimiter limiter, CompletableFuture<Verdict> evaluation,
			Function<Verdict, T> value) {
		CompletableFuture<T> result = new CompletableFuture<>();
		evaluation.whenComplete((verdict, ex) -> {
			if (ex != null) {
				result.completeExceptionally(Futures.unwrap(ex));
				return;
			}
			CompletableFuture<T> slot;
			try {
				slot = atSlot(limiter, verdict, value.apply(verdict));
			}
			catch (RuntimeException failure) {
				result.completeExceptionally(failure);
				return;
			}
			slot.whenComplete((done, failure) -> {
				if (failure == null) {
					result.complete(done);
				}
				else {
					result.completeExceptionally(failure);
				}
			});
			// cancelled while the store decided: the reservation made meanwhile is given back at once
			Futures.cancelling(result, slot);
		});
		return Futures.cancelling(result, evaluation);
	}

}
