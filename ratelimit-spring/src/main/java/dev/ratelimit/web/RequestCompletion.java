package dev.ratelimit.web;

import java.io.IOException;

import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.util.DisconnectedClientHelper;

/**
 * Ends a servlet request's {@link Completion} exactly once, on every way the request ends: when the outermost filter
 * that {@link #proceed proceeds} through it returns (normally, or with an exception), or, when the request went
 * asynchronous ({@code Callable}, {@code DeferredResult}, {@code CompletableFuture}, SSE and streaming responses),
 * when its asynchronous processing completes, times out or fails, on whatever thread that happens. A client that
 * closed the connection ends it as {@link Outcome#ABORTED}, whether the failed write was thrown through the chain or
 * handled by Spring MVC (which answers nothing more to a client that is gone). The completion also says what the
 * request produced ({@link Completion#status()}, {@link Completion#failure()}): the response's status (500 for an
 * exception thrown through the outermost filter), and the exception thrown through it, handled by Spring MVC's exception
 * resolvers, or raised by its asynchronous processing, so that rules with {@code count-when} can judge the outcome.
 * <p>
 * Filters register their callbacks with {@code RequestCompletion.of(request).onEnd(...)} and continue the chain with
 * {@link #proceed}; a request for which no callback was ever registered costs one attribute lookup.
 */
public final class RequestCompletion {

	private static final String ATTRIBUTE = RequestCompletion.class.getName();

	/**
	 * Where Spring MVC's {@code DispatcherServlet} keeps an exception that a resolver handled without a view: a client
	 * that went away while the response was written ends there, not thrown.
	 */
	private static final String HANDLED_EXCEPTION_ATTRIBUTE = "org.springframework.web.servlet.DispatcherServlet.EXCEPTION";

	private RequestCompletion() {
	}

	/**
	 * Returns the completion of a request, created at the first call. Callbacks registered on it run when the
	 * request ends, provided a filter continues the chain through {@link #proceed} (or has done so).
	 * @param request the request
	 * @return its completion
	 */
	public static Completion of(HttpServletRequest request) {
		return state(request).completion;
	}

	/**
	 * Continues the filter chain. If the request has a completion and this is the outermost call for it, ends the
	 * completion when the request ends: now, or with its asynchronous processing.
	 * @param request the request
	 * @param response the response
	 * @param chain the rest of the chain
	 * @throws IOException as the chain does
	 * @throws ServletException as the chain does
	 */
	public static void proceed(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws IOException, ServletException {
		State state = (request.getAttribute(ATTRIBUTE) instanceof State existing) ? existing : null;
		if (state != null) {
			state.depth++;
		}
		Throwable failure = null;
		try {
			chain.doFilter(request, response);
		}
		catch (IOException | ServletException | RuntimeException | Error ex) {
			failure = ex;
			throw ex;
		}
		finally {
			// the chain may have created the state (a later filter registered a callback): then this call is outside
			// it, and the inner call that proceeded ends it
			if (state != null && --state.depth == 0) {
				state.exit(request, response, failure);
			}
		}
	}

	/**
	 * Records that a later check denied the request after an earlier one admitted it, so that its completion ends as
	 * {@link Outcome#REJECTED} rather than {@link Outcome#COMPLETED}. Does nothing for a request without a completion.
	 * @param request the request
	 */
	public static void rejected(HttpServletRequest request) {
		if (request.getAttribute(ATTRIBUTE) instanceof State state) {
			state.record(Outcome.REJECTED);
		}
	}

	private static State state(HttpServletRequest request) {
		if (request.getAttribute(ATTRIBUTE) instanceof State state) {
			return state;
		}
		State state = new State();
		request.setAttribute(ATTRIBUTE, state);
		return state;
	}

	/** Returns how a failure ends a request: the client went away, or it failed. */
	static Outcome outcomeOf(@Nullable Throwable failure) {
		return (failure != null && DisconnectedClientHelper.isClientDisconnectedException(failure)) ? Outcome.ABORTED
				: Outcome.FAILED;
	}

	/** A request's completion and how far it got; also the listener of its asynchronous cycles. */
	private static final class State implements AsyncListener {

		private final Completion completion = new Completion();

		/** Nested {@link #proceed} calls in progress; touched only by the container thread of the dispatch. */
		private int depth;

		/** How it ended if not {@link Outcome#COMPLETED}; the first recorded wins. */
		private volatile @Nullable Outcome recorded;

		/** The exception it failed with, thrown or handled; the first recorded wins. */
		private volatile @Nullable Throwable failure;

		/** Whether an exception was thrown through the outermost filter: the container answers 500. */
		private volatile boolean thrown;

		private volatile @Nullable HttpServletResponse response;

		void exit(HttpServletRequest request, HttpServletResponse response, @Nullable Throwable failure) {
			this.response = response;
			if (failure != null) {
				record(outcomeOf(failure));
				recordFailure(failure);
				this.thrown = true;
			}
			else if (request.getAttribute(HANDLED_EXCEPTION_ATTRIBUTE) instanceof Throwable handled) {
				if (outcomeOf(handled) == Outcome.ABORTED) {
					record(Outcome.ABORTED);
				}
				recordFailure(handled);
			}
			if (request.isAsyncStarted()) {
				try {
					request.getAsyncContext().addListener(this);
					return;
				}
				catch (IllegalStateException ex) {
					// the asynchronous cycle is already over: the request has ended
				}
			}
			end();
		}

		synchronized void record(Outcome outcome) {
			if (this.recorded == null) {
				this.recorded = outcome;
			}
		}

		synchronized void recordFailure(@Nullable Throwable failure) {
			if (this.failure == null) {
				this.failure = failure;
			}
		}

		void end() {
			Outcome outcome = this.recorded;
			HttpServletResponse response = this.response;
			Integer status = this.thrown ? Integer.valueOf(HttpServletResponse.SC_INTERNAL_SERVER_ERROR)
					: (response != null) ? Integer.valueOf(response.getStatus()) : null;
			this.completion.end((outcome != null) ? outcome : Outcome.COMPLETED, status, this.failure);
		}

		@Override
		public void onComplete(AsyncEvent event) {
			end();
		}

		@Override
		public void onTimeout(AsyncEvent event) {
			// the container completes the request after its timeout handling: the completion ends in onComplete
			record(Outcome.TIMED_OUT);
		}

		@Override
		public void onError(AsyncEvent event) {
			record(outcomeOf(event.getThrowable()));
			recordFailure(event.getThrowable());
		}

		@Override
		public void onStartAsync(AsyncEvent event) {
			// a new asynchronous cycle of the same request (e.g. started again in an async dispatch): listeners are
			// not carried over to it
			event.getAsyncContext().addListener(this);
		}

	}

}
