package dev.ratelimit.resilience;

/**
 * Who decides right now.
 */
public enum StoreState {

	/** The shared store (Redis) decides. */
	REDIS,

	/** The shared store is unavailable: rules follow their {@code on-store-failure} mode. */
	FALLBACK,

	/** Only this instance's memory is configured ({@code ratelimit.store=local}). */
	LOCAL

}
