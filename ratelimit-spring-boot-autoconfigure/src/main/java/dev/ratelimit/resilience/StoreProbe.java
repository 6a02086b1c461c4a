package dev.ratelimit.resilience;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;

/**
 * Finds out in the background whether the shared store is back while its circuit breaker is open or half open, so
 * that no request ever waits on a probe. A probe is a request's checks at cost 0 (which consume nothing), sent only
 * when the breaker permits a call, one at a time, bounded by the store's timeout like any call; its outcome moves the
 * breaker (and so who decides).
 */
final class StoreProbe implements AutoCloseable {

	private final GuardedStore store;

	private final AtomicBoolean probing = new AtomicBoolean();

	private final ExecutorService executor = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "ratelimit-store-probe");
		thread.setDaemon(true);
		return thread;
	});

	StoreProbe(GuardedStore store) {
		this.store = store;
	}

	/** Probes the store with these checks at cost 0, unless a probe is running or the breaker permits no call. */
	void probe(List<RateLimitCheck> checks) {
		if (!this.probing.compareAndSet(false, true)) {
			return;
		}
		if (!this.store.circuitBreaker().tryAcquirePermission()) {
			// still open: the wait has not ended yet
			this.probing.set(false);
			return;
		}
		List<RateLimitCheck> inspections = checks.stream()
			.map((check) -> check.withCost(0))
			.toList();
		try {
			// issued from the probe's thread, so that a store whose non-blocking form blocks holds no request; a
			// non-blocking store frees that thread at once, and the outcome, recorded on the breaker, ends the probe
			this.executor.execute(() -> this.store.evaluateAsync(inspections, RateLimitListener.NONE)
				.whenComplete((verdict, ex) -> this.probing.set(false)));
		}
		catch (RejectedExecutionException ex) {
			this.store.circuitBreaker().releasePermission();
			this.probing.set(false);
		}
	}

	/** Stops the probe thread. */
	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
