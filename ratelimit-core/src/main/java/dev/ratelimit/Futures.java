package dev.ratelimit;

import dev.ratelimit.store.RateLimitStoreException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * What the non-blocking forms of the limiters share: a timeout that gives up a store call without a thread waiting
 * for it, cancellation passed on to the call a future was derived from, and a bounded wait for the blocking forms.
 * Not meant for applications.
 * <p>
 * The timeouts run on one daemon thread for the whole JVM ({@code ratelimit-store-timeout}); a future that times out
 * is completed there, so whatever depends on it runs there too and must not block.
 */
public final class Futures {

	private static final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (runnable) -> {
		Thread thread = new Thread(runnable, "ratelimit-store-timeout");
		thread.setDaemon(true);
		return thread;
	});

	/**
	 * The period of the task that keeps the timer's queue from emptying (see {@link #keepHeadTask()}), in milliseconds:
	 * below the stores' default timeout (100 ms), so that their timeouts never become the earliest task.
	 */
	private static final long HEAD_PERIOD_MILLIS = 50;

	private static final AtomicBoolean headTaskStarted = new AtomicBoolean();

	static {
		// a call that is answered in time removes its timeout at once rather than leaving it queued
		timer.setRemoveOnCancelPolicy(true);
	}

	private Futures() {
	}

	/**
	 * Starts a non-blocking operation, turning an exception it throws before returning into a failed future.
	 * @param operation starts the operation
	 * @param <T> the result type
	 * @return the operation's future
	 */
	public static <T> CompletableFuture<T> start(Supplier<CompletableFuture<T>> operation) {
		try {
			return operation.get();
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
	}

	/**
	 * Bounds a store call by a timeout without a thread waiting for it. When the timeout ends first, the call's own
	 * future is cancelled (a Redis store then gives the call up: no further command, and what a command that still
	 * runs consumes is given back) and the result fails with a {@link RateLimitStoreException} whose cause is a
	 * {@link TimeoutException}. When the call's answer arrives as the timeout ends (it can no longer be cancelled),
	 * the answer is used rather than thrown away, since the store has counted it. Cancelling the result cancels the
	 * call.
	 * @param call the store call, not derived from another future (its cancellation must reach the store)
	 * @param timeout the timeout, or {@code null} for none
	 * @param <T> the result type
	 * @return the bounded result (the call itself when it is done or there is no timeout)
	 */
	public static <T> CompletableFuture<T> withTimeout(CompletableFuture<T> call, @Nullable Duration timeout) {
		if (timeout == null || call.isDone()) {
			return call;
		}
		keepHeadTask();
		CompletableFuture<T> bounded = new CompletableFuture<>();
		AtomicBoolean timedOut = new AtomicBoolean();
		ScheduledFuture<?> expiry = timer.schedule(() -> {
			timedOut.set(true);
			if (call.cancel(true)) {
				bounded.completeExceptionally(new RateLimitStoreException(
						"The rate limit store did not answer within " + timeout, new TimeoutException()));
			}
		}, timeout.toNanos(), TimeUnit.NANOSECONDS);
		call.whenComplete((value, ex) -> {
			expiry.cancel(false);
			if (ex == null) {
				bounded.complete(value);
			}
			else if (!(timedOut.get() && call.isCancelled())) {
				bounded.completeExceptionally(ex);
			}
		});
		return cancelling(bounded, call);
	}

	/**
	 * Starts, once, a periodic task that does nothing, so that the timer's queue always holds a task earlier than a
	 * new timeout. A task queued as the earliest wakes the timer thread (to wait for the new, shorter delay): with one
	 * call in flight at a time, every call's timeout was the earliest and every call woke that thread, about 5 µs of
	 * latency and of CPU per call on a 2-core machine (docs/profiling.md, decision 132). With the task, the thread
	 * wakes every {@value #HEAD_PERIOD_MILLIS} ms instead; a timeout shorter than that still wakes it, as before.
	 * Started on the first timeout, so a JVM that never calls the non-blocking forms never wakes.
	 */
	private static void keepHeadTask() {
		if (!headTaskStarted.get() && headTaskStarted.compareAndSet(false, true)) {
			timer.scheduleAtFixedRate(() -> {
			}, HEAD_PERIOD_MILLIS, HEAD_PERIOD_MILLIS, TimeUnit.MILLISECONDS);
		}
	}

	/**
	 * Makes the cancellation of a derived future cancel the future it was derived from (which
	 * {@link CompletableFuture} does not do by itself), so that a caller who gives up also gives up the store call.
	 * @param derived the derived future
	 * @param source the future it depends on
	 * @param <T> the derived type
	 * @return {@code derived}
	 */
	public static <T> CompletableFuture<T> cancelling(CompletableFuture<T> derived, CompletableFuture<?> source) {
		derived.whenComplete((value, ex) -> {
			if (derived.isCancelled()) {
				source.cancel(true);
			}
		});
		return derived;
	}

	/**
	 * Returns the failure a future completed with, without the {@link CompletionException} or
	 * {@link ExecutionException} that dependent stages wrap it in.
	 * @param failure what the future or its stage reported
	 * @return the original failure
	 */
	public static Throwable unwrap(Throwable failure) {
		Throwable cause = failure;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

	/**
	 * Waits for a future that completes by itself (a bounded store call, or one that falls back), for the blocking
	 * forms. When the waiting thread is interrupted the future is cancelled, which gives up its store call, and the
	 * interrupt status is kept.
	 * @param future the future
	 * @param <T> the result type
	 * @return its value
	 * @throws RuntimeException what the future failed with (a checked failure wrapped in a
	 * {@link RateLimitStoreException}), or a {@link CancellationException} when interrupted or cancelled
	 */
	public static <T> T await(CompletableFuture<T> future) {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			future.cancel(true);
			Thread.currentThread().interrupt();
			CancellationException cancelled = new CancellationException("Interrupted while waiting for a rate limit");
			cancelled.initCause(ex);
			throw cancelled;
		}
		catch (ExecutionException ex) {
			Throwable cause = unwrap(ex);
			if (cause instanceof RuntimeException runtime) {
				throw runtime;
			}
			if (cause instanceof Error error) {
				throw error;
			}
			throw new RateLimitStoreException("The rate limit store failed: " + cause.getMessage(), cause);
		}
	}

}
