package dev.ratelimit.sample.redis;

/**
 * When the sample starts its own Redis ({@code sample.embedded-redis}).
 */
public enum EmbeddedRedisMode {

	/**
	 * Start one only when no {@code spring.data.redis.*} connection is configured and no Redis answers on
	 * {@code localhost:6379}.
	 */
	AUTO,

	/** Always start one and use it, whatever is configured or running (for tests and reproducible demos). */
	ALWAYS,

	/** Never start one: use the configured Redis, else Spring Boot's default {@code localhost:6379}. */
	NEVER

}
