package dev.ratelimit.test.redis;

/**
 * Provides one standalone Redis per JVM, started lazily and stopped when the test run ends.
 *
 * <p>Test methods and constructors can declare parameters of type {@link RedisEndpoint} (any
 * server) or {@link RedisServerProcess} (only a harness-started server, e.g. to kill it). Code
 * without parameter injection, such as a {@code @DynamicPropertySource} method, can call
 * {@link #shared()}. If the environment variable {@value #REDIS_URL_ENV} is set, that server is
 * used instead of starting one. If no server can be provided the tests fail (they are never
 * skipped).
 *
 * <p>Before each test, a shared server that a previous test killed or stopped is restarted. Data is
 * not cleared automatically; call {@link RedisEndpoint#flushAll()} for a clean state.
 *
 * @see RedisStandaloneTest
 */
public class RedisStandaloneExtension extends SharedRedisExtension<RedisEndpoint, RedisServerProcess> {

	/** Env variable with the URI of an existing server to use, e.g. {@code redis://localhost:6379}. */
	public static final String REDIS_URL_ENV = "REDIS_URL";

	private static final Kind<RedisEndpoint, RedisServerProcess> STANDALONE = new Kind<>("a standalone Redis",
			REDIS_URL_ENV, RedisEndpoint.class, RedisServerProcess.class, RedisEndpoint::external, RedisEndpoint::ping,
			RedisServerProcess::start, RedisServerProcess::endpoint, (process) -> {
				if (!process.isRunning()) {
					process.restart();
				}
			});

	public RedisStandaloneExtension() {
		super(STANDALONE);
	}

	/** The shared server, started on first use. */
	public static RedisEndpoint shared() {
		return STANDALONE.endpoint();
	}

	/**
	 * The shared server's process.
	 * @throws IllegalStateException if the server is external ({@value #REDIS_URL_ENV})
	 */
	public static RedisServerProcess sharedProcess() {
		return STANDALONE.process();
	}

}
