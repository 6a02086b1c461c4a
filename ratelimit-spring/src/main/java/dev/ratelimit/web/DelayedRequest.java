package dev.ratelimit.web;

import java.io.IOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.lease.LeaseRelease;
import io.micrometer.observation.Observation;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * A request admitted with a {@link Verdict#delay() delay}, waiting for its reserved slot without a thread: the
 * request is put in asynchronous mode, a timer dispatches it again at its slot (an {@code ASYNC} dispatch through the
 * same filters, where the filter that delayed it lets it proceed), and if the container reports the request failed
 * (the client went away), timed out or completed first, the reservation is cancelled, and whatever else the verdict
 * holds (leases, the rule's waiting places, adaptive places) is given back. Exactly one of the two happens.
 * <p>
 * Whether a client that hangs up is reported depends on the container: Tomcat watches an asynchronous request's
 * connection only while it reads or writes, so a request that waits without either is found gone at its slot, when
 * its response cannot be written (its slot is then used, not given back).
 */
public final class DelayedRequest implements AsyncListener {

	/** Request attribute holding the waiting (then resumed) request. */
	static final String ATTRIBUTE = DelayedRequest.class.getName();

	/**
	 * Request attribute present while a resumed request runs through the rest of the chain, so that a filter that
	 * has not seen the request yet (the later phase) applies its rules.
	 */
	static final String RESUMING_ATTRIBUTE = ATTRIBUTE + ".resuming";

	/**
	 * Request attribute holding the {@link System#nanoTime()} at which this instance scheduled the request's slot (the
	 * verdict's arrival plus its delay), for tests and diagnostics: how late the request actually ran is the rest.
	 */
	public static final String SLOT_NANOS_ATTRIBUTE = ATTRIBUTE + ".slotNanos";

	/** Time the container gives the request beyond its slot before it times out (which cancels the reservation). */
	private static final long GRACE_MILLIS = 30_000;

	private static final Log logger = LogFactory.getLog(DelayedRequest.class);

	private static final int WAITING = 0;

	private static final int RESUMED = 1;

	private static final int CANCELLED = 2;

	private final Object owner;

	private final RateLimiter limiter;

	private final Verdict verdict;

	private final @Nullable AdaptiveAdmission admission;

	private final WaitingRoom.Places places;

	private final Observation wait;

	private final AtomicInteger state = new AtomicInteger(WAITING);

	private @Nullable AsyncContext context;

	/**
	 * @param owner the filter that delays the request, and lets it proceed when it is dispatched again
	 * @param limiter the limiter that reserved the slot
	 * @param verdict the verdict, admitted with a delay
	 * @param admission the places the request holds under adaptive limits, or {@code null}
	 * @param places the places it holds among its rules' waiting requests
	 * @param wait the observation of the wait, stopped at the slot or when the wait is given up
	 */
	DelayedRequest(Object owner, RateLimiter limiter, Verdict verdict, @Nullable AdaptiveAdmission admission,
			WaitingRoom.Places places, Observation wait) {
		this.wait = wait;
		this.owner = owner;
		this.limiter = limiter;
		this.verdict = verdict;
		this.admission = admission;
		this.places = places;
	}

	/**
	 * Returns the request that {@code owner} delayed and that is now dispatched again at its slot, or {@code null}.
	 * @param request the request of an {@code ASYNC} dispatch
	 * @param owner the filter asking
	 * @return the resumed request
	 */
	static @Nullable DelayedRequest resumedBy(HttpServletRequest request, Object owner) {
		if (request.getAttribute(ATTRIBUTE) instanceof DelayedRequest delayed && delayed.owner == owner
				&& delayed.state.get() == RESUMED) {
			request.removeAttribute(ATTRIBUTE);
			return delayed;
		}
		return null;
	}

	Verdict verdict() {
		return this.verdict;
	}

	@Nullable AdaptiveAdmission admission() {
		return this.admission;
	}

	/**
	 * Puts the request in asynchronous mode until its slot; the request must {@link HttpServletRequest#isAsyncSupported()
	 * support it}.
	 * @param request the request
	 * @param response the response
	 */
	void start(HttpServletRequest request, HttpServletResponse response) {
		long delayNanos = this.verdict.delay().toNanos();
		request.setAttribute(ATTRIBUTE, this);
		request.setAttribute(SLOT_NANOS_ATTRIBUTE, System.nanoTime() + delayNanos);
		AsyncContext asyncContext = request.startAsync(request, response);
		asyncContext.setTimeout(TimeUnit.NANOSECONDS.toMillis(delayNanos) + GRACE_MILLIS);
		asyncContext.addListener(this);
		this.context = asyncContext;
		CompletableFuture.delayedExecutor(delayNanos, TimeUnit.NANOSECONDS, Runnable::run).execute(this::resume);
	}

	/** At the slot: dispatches the request again, unless it was cancelled. */
	private void resume() {
		if (this.state.compareAndSet(WAITING, RESUMED)) {
			this.places.leave();
			this.wait.stop();
			try {
				this.context.dispatch();
			}
			catch (IllegalStateException ex) {
				// the request ended meanwhile (the container completed it): it did not use its slot
				logger.debug("A delayed request ended before its slot", ex);
			}
		}
	}

	/** Gives back what the waiting request holds, once, unless it was already dispatched. */
	private boolean cancel() {
		if (!this.state.compareAndSet(WAITING, CANCELLED)) {
			return false;
		}
		this.places.leave();
		this.wait.error(new CancellationException("the request stopped waiting for its slot"));
		this.wait.stop();
		try {
			this.limiter.cancel(this.verdict);
		}
		catch (RuntimeException ex) {
			logger.warn("Could not cancel the reservation of a request that stopped waiting; its slot stays taken", ex);
		}
		LeaseRelease.releaseDenied(this.limiter, this.verdict);
		if (this.admission != null) {
			this.admission.release(Outcome.REJECTED);
		}
		return true;
	}

	@Override
	public void onError(AsyncEvent event) {
		// the client went away (or the connection failed) while the request waited
		if (cancel()) {
			event.getAsyncContext().complete();
		}
	}

	@Override
	public void onTimeout(AsyncEvent event) throws IOException {
		if (cancel()) {
			HttpServletResponse response = (HttpServletResponse) event.getSuppliedResponse();
			response.sendError(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
			event.getAsyncContext().complete();
		}
	}

	@Override
	public void onComplete(AsyncEvent event) {
		// completed before its slot (e.g. by the container while shutting down): give everything back
		cancel();
	}

	@Override
	public void onStartAsync(AsyncEvent event) {
		// a new asynchronous cycle of the resumed request is not this one's
	}

}
