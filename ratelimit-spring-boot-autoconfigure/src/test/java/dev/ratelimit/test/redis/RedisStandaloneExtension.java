package dev.ratelimit.test.redis;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

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
public class RedisStandaloneExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	/** Env variable with the URI of an existing server to use, e.g. {@code redis://localhost:6379}. */
	public static final String REDIS_URL_ENV = "REDIS_URL";

	private static final SharedResource<Standalone> SHARED =
			new SharedResource<>("a standalone Redis", RedisStandaloneExtension::provide);

	/** The shared server, started on first use. */
	public static RedisEndpoint shared() {
		return SHARED.get().endpoint();
	}

	/**
	 * The shared server's process.
	 *
	 * @throws IllegalStateException if the server is external ({@value #REDIS_URL_ENV})
	 */
	public static RedisServerProcess sharedProcess() {
		Standalone standalone = SHARED.get();
		if (standalone.process() == null) {
			throw new IllegalStateException("This test needs a Redis process it controls, but " + REDIS_URL_ENV + "="
					+ standalone.endpoint().uri() + " points to an external server");
		}
		return standalone.process();
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		SHARED.get();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		RedisServerProcess process = SHARED.get().process();
		if (process != null && !process.isRunning()) {
			process.restart();
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		Class<?> type = parameter.getParameter().getType();
		return type == RedisEndpoint.class || type == RedisServerProcess.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		try {
			return parameter.getParameter().getType() == RedisEndpoint.class ? shared() : sharedProcess();
		}
		catch (RuntimeException ex) {
			throw new ParameterResolutionException(ex.getMessage(), ex);
		}
	}

	private static Standalone provide() {
		String url = System.getenv(REDIS_URL_ENV);
		if (url != null && !url.isBlank()) {
			RedisEndpoint endpoint = RedisEndpoint.external(url);
			try {
				endpoint.ping();
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException(REDIS_URL_ENV + "=" + url + " does not answer PING: " + ex, ex);
			}
			return new Standalone(endpoint, null);
		}
		try {
			RedisServerProcess process = RedisServerProcess.start();
			return new Standalone(process.endpoint(), process);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Cannot start redis-server for the tests. Install redis-server, set "
					+ RedisBinary.ENV + " to an executable, or set " + REDIS_URL_ENV + " to use a running server. Cause: "
					+ ex.getMessage(), ex);
		}
	}

	/** The shared server; {@code process} is null when external. */
	private record Standalone(RedisEndpoint endpoint, RedisServerProcess process) implements AutoCloseable {

		@Override
		public void close() {
			if (process != null) {
				process.close();
			}
		}
	}
}
