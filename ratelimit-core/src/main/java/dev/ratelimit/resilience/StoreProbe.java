package dev.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.store.StoreState;

/**
 * Finds out in the background whether the shared store (or one node of it) is back while its circuit breaker is open
 * or half open, so that no request ever waits on a probe. A probe is a request's checks at cost 0 (which consume
 * nothing), sent only when the breakers of the nodes it touches permit a call, one at a time per unavailable node,
 * bounded by the store's timeout like any call; its outcome moves the breakers (and so who decides).
 */
final class StoreProbe implements AutoCloseable {

	private final GuardedStore store;

	private final ExecutorService executor = Executors.newSingleThreadExecutor((runnable) -> {
		Thread thread = new Thread(runnable, "ratelimit-store-probe");
		thread.setDaemon(true);
		return thread;
	});

	StoreProbe(GuardedStore store) {
		this.store = store;
	}

	/**
	 * Probes the store with these checks at cost 0, unless a probe of their first unavailable node is running or a
	 * breaker permits no call.
	 * @param guards the guards of the nodes serving the checks' keys, one of them unavailable
	 * @param checks the checks
	 */
	void probe(List<NodeGuard> guards, List<RateLimitCheck> checks) {
		AtomicBoolean probing = guards.stream()
			.filter((guard) -> guard.state() != StoreState.REDIS)
			.findFirst()
			.orElse(guards.get(0))
			.probing();
		if (!probing.compareAndSet(false, true)) {
			return;
		}
		List<NodeGuard> permitted = new ArrayList<>(guards.size());
		for (NodeGuard guard : guards) {
			if (!guard.circuitBreaker().tryAcquirePermission()) {
				// still open: the wait has not ended yet
				permitted.forEach((acquired) -> acquired.circuitBreaker().releasePermission());
				probing.set(false);
				return;
			}
			permitted.add(guard);
		}
		List<RateLimitCheck> inspections = checks.stream()
			.map((check) -> check.withCost(0))
			.toList();
		try {
			// issued from the probe's thread, so that a store whose non-blocking form blocks holds no request; a
			// non-blocking store frees that thread at once, and the outcome, recorded on the breakers, ends the probe
			this.executor.execute(() -> this.store.evaluateAsync(permitted, inspections, RateLimitListener.NONE)
				.whenComplete((verdict, ex) -> probing.set(false)));
		}
		catch (RejectedExecutionException ex) {
			permitted.forEach((acquired) -> acquired.circuitBreaker().releasePermission());
			probing.set(false);
		}
	}

	/** Stops the probe thread. */
	@Override
	public void close() {
		this.executor.shutdownNow();
	}

}
