package dev.ratelimit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The end of one request or call: callbacks registered with {@link #onEnd(Consumer)} run exactly once, when it
 * {@link #end(Outcome) ends}, whichever thread ends it. A callback registered after the end runs at once, so nothing
 * registered is ever left waiting. A web adapter ends the completion of a request on every way a request ends
 * ({@code dev.ratelimit.web.RequestCompletion} for servlet requests, asynchronous ones included); the
 * {@code @RateLimited} aspect ends one per call when the method returns or throws, or when the
 * {@link java.util.concurrent.CompletionStage} it returned completes.
 */
public final class Completion {

	private static final Log logger = LogFactory.getLog(Completion.class);

	private @Nullable List<Consumer<Outcome>> callbacks = new ArrayList<>(2);

	private @Nullable Outcome outcome;

	private @Nullable Integer status;

	private @Nullable Throwable failure;

	private final boolean nonBlocking;

	/** Creates the completion of a request or call whose callbacks may block (a servlet request, a method call). */
	public Completion() {
		this(false);
	}

	private Completion(boolean nonBlocking) {
		this.nonBlocking = nonBlocking;
	}

	/**
	 * Creates the completion of a request that ends on a thread that must never block, such as a reactive web
	 * server's event loop: callbacks that talk to the store use its non-blocking forms ({@code releaseAsync},
	 * {@code refundAsync}) and do not wait for them.
	 * @return the completion
	 */
	public static Completion nonBlocking() {
		return new Completion(true);
	}

	/**
	 * Returns whether callbacks must not block ({@link #nonBlocking()}).
	 * @return whether it ends on a thread that must never block
	 */
	public boolean isNonBlocking() {
		return this.nonBlocking;
	}

	/**
	 * Registers a callback to run once when the request or call ends; at once if it already has.
	 * @param callback told how it ended
	 */
	public void onEnd(Consumer<Outcome> callback) {
		Outcome ended;
		synchronized (this) {
			if (this.callbacks != null) {
				this.callbacks.add(callback);
				return;
			}
			ended = this.outcome;
		}
		run(callback, ended);
	}

	/**
	 * Ends the request or call: runs every callback registered so far, once, in registration order. Only the first
	 * call does anything. A callback that throws is logged and does not keep the others from running.
	 * @param outcome how it ended
	 * @return whether this call ended it (false when it had already ended)
	 */
	public boolean end(Outcome outcome) {
		return end(outcome, null, null);
	}

	/**
	 * Ends the request or call, saying what it produced; see {@link #end(Outcome)}. Callbacks read it through
	 * {@link #status()} and {@link #failure()}.
	 * @param outcome how it ended
	 * @param status the status of the response, or {@code null} for a call (or a request without one)
	 * @param failure the exception it failed with, or {@code null}
	 * @return whether this call ended it (false when it had already ended)
	 */
	public boolean end(Outcome outcome, @Nullable Integer status, @Nullable Throwable failure) {
		List<Consumer<Outcome>> toRun;
		synchronized (this) {
			if (this.callbacks == null) {
				return false;
			}
			toRun = this.callbacks;
			this.callbacks = null;
			this.outcome = outcome;
			this.status = status;
			this.failure = failure;
		}
		for (Consumer<Outcome> callback : toRun) {
			run(callback, outcome);
		}
		return true;
	}

	/** Returns how the request or call ended, or {@code null} while it has not. */
	public synchronized @Nullable Outcome outcome() {
		return this.outcome;
	}

	/**
	 * Returns the status of the response a request ended with (for a request that failed with an exception thrown
	 * through the filters, 500), or {@code null} for a call, or while it has not ended.
	 */
	public synchronized @Nullable Integer status() {
		return this.status;
	}

	/**
	 * Returns the exception the request or call failed with: thrown by the method, thrown through the filters, or
	 * handled by Spring MVC's exception resolvers (e.g. an {@code @ExceptionHandler}); {@code null} when there was none,
	 * or while it has not ended.
	 */
	public synchronized @Nullable Throwable failure() {
		return this.failure;
	}

	private static void run(Consumer<Outcome> callback, @Nullable Outcome outcome) {
		try {
			callback.accept((outcome != null) ? outcome : Outcome.COMPLETED);
		}
		catch (RuntimeException ex) {
			logger.warn("A callback at the end of a request failed", ex);
		}
	}

	/** How a request or call ended. */
	public enum Outcome {

		/** It completed: a response was produced (whatever its status), or the method returned a value. */
		COMPLETED,

		/** It failed with an exception (a 500 for a request), or its asynchronous processing failed. */
		FAILED,

		/** The client went away (closed the connection) or cancelled the call before it completed. */
		ABORTED,

		/** Its asynchronous processing timed out. */
		TIMED_OUT,

		/** A later rate limit check denied it after an earlier one had admitted it (e.g. after authentication). */
		REJECTED

	}

}
