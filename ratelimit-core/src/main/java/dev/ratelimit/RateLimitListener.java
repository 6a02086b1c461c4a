package dev.ratelimit;

import dev.ratelimit.lease.Lease;
import dev.ratelimit.store.StoreNodes;
import dev.ratelimit.store.StoreState;
import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Observes a {@link RateLimiter}: every verdict, every call to the shared store, every release of concurrency leases,
 * every rule whose key, tier key or cost could not be resolved, and every change of who decides ({@link StoreState}). Metrics and the top-offenders view
 * are listeners; declare a bean of this type to add your own. Keep it cheap, and never block: with the blocking
 * forms of the limiter it is called on the request thread; with the non-blocking forms (and for the background
 * probes of the resilient limiter), on whichever thread completes the call: a Redis client's event loop, the
 * timeout's thread ({@code ratelimit-store-timeout}), or the caller for an answer from memory.
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

	/** The part of a rule that could not be resolved for a request. */
	enum ResolutionPart {

		/** The key ({@code ratelimit.rules.<name>.key}); the client IP is used instead. */
		KEY("key"),

		/** The tier key ({@code ratelimit.rules.<name>.tier-key}); the rule's own limit is used instead. */
		TIER_KEY("tier-key"),

		/** The cost ({@code ratelimit.rules.<name>.cost}); the request costs 1 instead. */
		COST("cost"),

		/** The distinct value ({@code ratelimit.rules.<name>.distinct}); the client IP is counted instead. */
		DISTINCT("distinct"),

		/**
		 * The subject's zone ({@code ratelimit.rules.<name>.zone-key} of a calendar quota), or a value that is not an
		 * IANA zone id; the rule's {@code zone} is used instead.
		 */
		ZONE_KEY("zone-key");

		private final String propertyName;

		ResolutionPart(String propertyName) {
			this.propertyName = propertyName;
		}

		/** Returns the name of the rule's property, e.g. {@code tier-key}. */
		public String propertyName() {
			return this.propertyName;
		}

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

	/**
	 * Called when a part of a rule could not be resolved for a request, e.g. because its SpEL expression or its
	 * {@link KeyResolver} bean threw; the rule then uses that part's fallback.
	 * @param rule the rule name
	 * @param part what could not be resolved
	 * @param failure what the expression or resolver threw; its message may quote client input
	 */
	default void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
	}

	/**
	 * Called after concurrency leases were released ({@link RateLimiter#release}), normally when the request or call
	 * that held them ended.
	 * @param leases the leases
	 * @param held for each lease, whether it was still held until this call ({@code false}: it had expired and was
	 * reclaimed, or was released before)
	 */
	default void onRelease(List<Lease> leases, List<Boolean> held) {
	}

	/**
	 * Called when who decides changes: the shared store's circuit breaker opened ({@link StoreState#REDIS} to
	 * {@link StoreState#FALLBACK}) or closed again ({@link StoreState#FALLBACK} to {@link StoreState#REDIS}); in a
	 * Redis Cluster, where every master has its own breaker, also to and from {@link StoreState#PARTIAL} when some of
	 * them are open (each master's own changes are {@link #onStoreNodeStateChange}). Called once per change, on the thread whose call changed the breaker's state (a request's or the background probe's).
	 * @param previous who decided until now
	 * @param current who decides from now on
	 * @param cause the last failure of the store when it became unavailable; {@code null} on recovery, or when the
	 * breaker opened without a failed call (e.g. forced open)
	 */
	default void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
	}

	/**
	 * Called when who decides changes for the keys of one node of a store whose nodes fail independently (a master
	 * of a Redis Cluster, see {@link StoreNodes}): its circuit breaker opened ({@link StoreState#REDIS} to
	 * {@link StoreState#FALLBACK}), or closed again, or the node stopped serving keys (a replica took over its slots)
	 * while its breaker was open ({@link StoreState#FALLBACK} to {@link StoreState#REDIS}). The change of the state of
	 * the whole store that it causes, if any, is published as {@link #onStoreStateChange}.
	 * @param node the node's id
	 * @param previous who decided its keys until now
	 * @param current who decides its keys from now on
	 * @param cause the node's last failure when it became unavailable, else {@code null}
	 */
	default void onStoreNodeStateChange(String node, StoreState previous, StoreState current,
			@Nullable Throwable cause) {
	}

	/**
	 * Called after admitted checks gave back what they consumed ({@link RateLimiter#refund}), e.g. because the
	 * request's outcome is one its rule does not count ({@code count-when}).
	 * @param refunded what was given back
	 */
	default void onRefund(List<Consumption> refunded) {
	}

	/**
	 * Called after admitted checks were settled ({@link RateLimiter#settle}): charged the difference between their
	 * estimate and their actual cost, or given back the part they did not use.
	 * @param settled what was settled
	 */
	default void onSettle(List<Settlement> settled) {
	}

	/**
	 * Called when a denied call was answered by its fallback method ({@code @RateLimited(fallbackMethod = ...)})
	 * instead of an exception; its verdict was reported to {@link #onVerdict} before, as denied.
	 * @param verdict the verdict that denied the call (empty when an adaptive concurrency limit denied it)
	 */
	default void onFallback(Verdict verdict) {
	}

	/**
	 * Called when a request or call was decided by the allow or deny list ({@code ratelimit.lists.*}) rather than by
	 * a rule: a denied one reached no rule (and no store), an allowed one skipped the rule.
	 * @param rule the rule whose subject (or client address) the entry matched
	 * @param subject the subject as the rule's key resolved it; client input, never a metric tag
	 * @param denied {@code true} for the deny list, {@code false} for the allow list
	 */
	default void onListed(String rule, String subject, boolean denied) {
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

			@Override
			public void onResolutionFailure(String rule, ResolutionPart part, RuntimeException failure) {
				for (RateLimitListener listener : all) {
					listener.onResolutionFailure(rule, part, failure);
				}
			}

			@Override
			public void onRelease(List<Lease> leases, List<Boolean> held) {
				for (RateLimitListener listener : all) {
					listener.onRelease(leases, held);
				}
			}

			@Override
			public void onStoreStateChange(StoreState previous, StoreState current, @Nullable Throwable cause) {
				for (RateLimitListener listener : all) {
					listener.onStoreStateChange(previous, current, cause);
				}
			}

			@Override
			public void onStoreNodeStateChange(String node, StoreState previous, StoreState current,
					@Nullable Throwable cause) {
				for (RateLimitListener listener : all) {
					listener.onStoreNodeStateChange(node, previous, current, cause);
				}
			}

			@Override
			public void onRefund(List<Consumption> refunded) {
				for (RateLimitListener listener : all) {
					listener.onRefund(refunded);
				}
			}

			@Override
			public void onSettle(List<Settlement> settled) {
				for (RateLimitListener listener : all) {
					listener.onSettle(settled);
				}
			}

			@Override
			public void onFallback(Verdict verdict) {
				for (RateLimitListener listener : all) {
					listener.onFallback(verdict);
				}
			}

			@Override
			public void onListed(String rule, String subject, boolean denied) {
				for (RateLimitListener listener : all) {
					listener.onListed(rule, subject, denied);
				}
			}

		};
	}

	/** A listener that does nothing. */
	RateLimitListener NONE = new RateLimitListener() {
	};

}
