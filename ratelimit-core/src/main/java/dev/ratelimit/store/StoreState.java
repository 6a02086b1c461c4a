package dev.ratelimit.store;

/**
 * Who decides right now. With a shared store it is its circuit breaker's state: closed means the store decides,
 * open or half open means the rules' {@code on-store-failure} modes decide. In a Redis Cluster every master has its
 * own breaker, and the state is {@link #PARTIAL} while some of them are open.
 */
public enum StoreState {

	/**
	 * The shared store (Redis) decides: its circuit breaker is closed. A call that fails still falls back, for that
	 * request only.
	 */
	REDIS,

	/**
	 * The shared store is unavailable (its circuit breaker is open or half open): rules follow their
	 * {@code on-store-failure} mode.
	 */
	FALLBACK,

	/**
	 * Some nodes of a shared store whose nodes fail independently (the masters of a Redis Cluster) are unavailable
	 * (their circuit breakers are open or half open), the others decide: requests whose keys live on the available
	 * nodes only are decided by the store, the others follow their rules' {@code on-store-failure} modes.
	 */
	PARTIAL,

	/** Only this instance's memory is configured ({@code ratelimit.store=local}). */
	LOCAL

}
