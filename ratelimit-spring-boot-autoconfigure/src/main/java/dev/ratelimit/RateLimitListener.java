package dev.ratelimit;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Observes a {@link RateLimiter}: every verdict, and every call to the shared store. Metrics and the top-offenders
 * view are listeners; declare a bean of this type to add your own. Called on the request thread: keep it cheap.
 */
public interface RateLimitListener {

	/** Where a verdict came from. */
	enum Source {

		/** The store (Redis, or memory with {@code ratelimit.store=local}). */
		STORE,

		/** The deny cache, without a store call. */
		DENY_CACHE,

		/** The rules' {@code on-store-failure} modes, because the shared store is unavailable. */
		FALLBACK

	}

	/**
	 * Called for every verdict.
	 * @param verdict the verdict
	 * @param source where it came from
	 */
	default void onVerdict(Verdict verdict, Source source) {
	}

	/**
	 * Called after every call to the shared store.
	 * @param checks the checks of the call
	 * @param latency how long it took
	 * @param failure the failure, or {@code null} when it succeeded
	 */
	default void onStoreCall(List<RateLimitCheck> checks, Duration latency, @Nullable Throwable failure) {
	}

	/** Returns a listener that calls each of the given listeners. */
	static RateLimitListener composite(List<RateLimitListener> listeners) {
		if (listeners.isEmpty()) {
			return NONE;
		}
		if (listeners.size() == 1) {
			return listeners.get(0);
		}
		List<RateLimitListener> all = List.copyOf(listeners);
		return new RateLimitListener() {

			@Override
			public void onVerdict(Verdict verdict, Source source) {
				for (RateLimitListener listener : all) {
					listener.onVerdict(verdict, source);
				}
			}

			@Override
			public void onStoreCall(List<RateLimitCheck> checks, Duration latency, @Nullable Throwable failure) {
				for (RateLimitListener listener : all) {
					listener.onStoreCall(checks, latency, failure);
				}
			}

		};
	}

	/** A listener that does nothing. */
	RateLimitListener NONE = new RateLimitListener() {
	};

}
