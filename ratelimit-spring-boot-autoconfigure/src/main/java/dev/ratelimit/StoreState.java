package dev.ratelimit;

/**
 * Who decides right now. With a shared store it is its circuit breaker's state: closed means the store decides,
 * open or half open means the rules' {@code on-store-failure} modes decide.
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

	/** Only this instance's memory is configured ({@code ratelimit.store=local}). */
	LOCAL

}
