package dev.ratelimit.resilience;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitStoreException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.StoreState;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The shared store as the parts that fail on their own ({@link FailureDomains}), each behind its own circuit breaker
 * and background probe. Without failure domains there is one part, behind the breaker the limiter was built with,
 * whose state changes are published as they are. With them, each part has a breaker named
 * {@code <main breaker>@<part>} with the main breaker's configuration, and what is published is the state of the
 * whole: {@link StoreState#FALLBACK} while any part still in use is not closed, {@link StoreState#REDIS} once none is
 * (the part closed again, or stopped being used: a master replaced by its replica).
 */
final class StoreParts implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(StoreParts.class);

	private final RateLimiter store;

	private final LongSupplier nanoTime;

	private final RateLimitListener listener;

	private final @Nullable FailureDomains domains;

	private final Part main;

	private final Map<String, Part> parts = new ConcurrentHashMap<>();

	/** The state of the whole last published (with failure domains). */
	private StoreState published = StoreState.REDIS;

	/**
	 * @param store the limiter over the shared store
	 * @param breaker the main circuit breaker
	 * @param domains the store's failure domains, or {@code null} when it is one part
	 * @param listener told of every change of who decides
	 * @param nanoTime the monotonic time source
	 */
	StoreParts(RateLimiter store, CircuitBreaker breaker, @Nullable FailureDomains domains, RateLimitListener listener,
			LongSupplier nanoTime) {
		this.store = store;
		this.nanoTime = nanoTime;
		this.listener = listener;
		this.domains = domains;
		this.main = new Part("", new GuardedStore(store, breaker, nanoTime), (domains != null) ? "" : null);
	}

	/** Returns the part that decides these checks. */
	Part partFor(List<RateLimitCheck> checks) {
		if (this.domains == null) {
			return this.main;
		}
		String domain;
		try {
			domain = this.domains.domainOf(checks);
		}
		catch (RuntimeException ex) {
			return this.main;
		}
		if (domain.isEmpty()) {
			return this.main;
		}
		Part part = this.parts.get(domain);
		if (part == null) {
			part = this.parts.computeIfAbsent(domain, this::newPart);
			// a new part (e.g. a promoted replica) may have retired an old one that never closes
			changed(null, null);
		}
		return part;
	}

	private Part newPart(String domain) {
		CircuitBreaker main = this.main.store.circuitBreaker();
		CircuitBreaker breaker = CircuitBreaker.of(main.getName() + "@" + domain, main.getCircuitBreakerConfig());
		return new Part(domain, new GuardedStore(this.store, breaker, this.nanoTime), domain);
	}

	/** Returns the part of the store as a whole (the only one without failure domains). */
	Part main() {
		return this.main;
	}

	/** Returns who decides: with failure domains, {@code FALLBACK} while any part in use is unavailable. */
	StoreState state() {
		if (this.domains == null) {
			return this.main.state.state();
		}
		return (unavailable().isEmpty()) ? StoreState.REDIS : StoreState.FALLBACK;
	}

	/** Returns the breaker state to show: the main breaker's, or that of an unavailable part. */
	CircuitBreaker.State circuitState() {
		for (Part part : unavailableParts()) {
			return part.store.circuitBreaker().getState();
		}
		return this.main.store.circuitBreaker().getState();
	}

	/** Returns the names of the parts in use that are unavailable, e.g. the master being failed over. */
	List<String> unavailable() {
		return unavailableParts().stream().map((part) -> part.domain.isEmpty() ? "*" : part.domain).sorted().toList();
	}

	private List<Part> unavailableParts() {
		List<Part> unavailable = new ArrayList<>();
		if (this.main.state.state() != StoreState.REDIS) {
			unavailable.add(this.main);
		}
		if (this.domains != null) {
			for (Part part : this.parts.values()) {
				if (part.state.state() != StoreState.REDIS && isCurrent(part.domain)) {
					unavailable.add(part);
				}
			}
		}
		return unavailable;
	}

	private boolean isCurrent(String domain) {
		try {
			return this.domains == null || this.domains.isCurrent(domain);
		}
		catch (RuntimeException ex) {
			return true;
		}
	}

	/** Publishes a change of the whole, if the state of the whole changed. */
	private synchronized void changed(@Nullable String domain, @Nullable Throwable cause) {
		StoreState current = state();
		if (current == this.published) {
			return;
		}
		StoreState previous = this.published;
		this.published = current;
		Throwable reported = (cause != null && domain != null && !domain.isEmpty())
				? new RateLimitStoreException("node " + domain + ": " + cause.getMessage(), cause) : cause;
		try {
			this.listener.onStoreStateChange(previous, current, reported);
		}
		catch (RuntimeException ex) {
			logger.warn("A rate limit listener failed on a store state change from " + previous + " to " + current, ex);
		}
	}

	/** Stops the probe threads. */
	@Override
	public void close() {
		this.main.probe.close();
		this.parts.values().forEach((part) -> part.probe.close());
	}

	/** One part: its breaker around the store, its state, its probe. */
	final class Part {

		private final String domain;

		final GuardedStore store;

		final CircuitBreakerStoreState state;

		final StoreProbe probe;

		/**
		 * @param aggregateAs the part's name when its changes count towards the whole, or {@code null} when they are
		 * published as they are
		 */
		Part(String domain, GuardedStore store, @Nullable String aggregateAs) {
			this.domain = domain;
			this.store = store;
			this.state = new CircuitBreakerStoreState(store.circuitBreaker(), (aggregateAs == null)
					? StoreParts.this.listener : new RateLimitListener() {

						@Override
						public void onStoreStateChange(StoreState previous, StoreState current,
								@Nullable Throwable cause) {
							changed(aggregateAs, cause);
						}

					});
			this.probe = new StoreProbe(store);
		}

	}

}
