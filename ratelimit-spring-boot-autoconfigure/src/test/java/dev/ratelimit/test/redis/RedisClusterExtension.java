package dev.ratelimit.test.redis;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Provides one Redis Cluster (3 masters, 1 replica each) per JVM, started lazily and stopped when
 * the test run ends.
 *
 * <p>Test methods and constructors can declare parameters of type {@link RedisClusterEndpoint}
 * (any cluster) or {@link RedisCluster} (only a harness-started cluster, e.g. to kill a master).
 * Code without parameter injection can call {@link #shared()}. If the environment variable
 * {@value #REDIS_CLUSTER_NODES_ENV} is set, that cluster is used instead of starting one. If no
 * cluster can be provided the tests fail (they are never skipped).
 *
 * <p>Before each test, nodes that a previous test killed are restarted and the cluster is awaited
 * healthy, so failure tests do not leak into later tests (roles may have swapped, though). Tests
 * that kill nodes must not run in parallel with other cluster tests. Data is not cleared
 * automatically; call {@link RedisClusterEndpoint#flushAll()} for a clean state.
 *
 * @see RedisClusterTest
 */
public class RedisClusterExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

	/** Env variable with comma-separated {@code host:port} seeds of an existing cluster. */
	public static final String REDIS_CLUSTER_NODES_ENV = "REDIS_CLUSTER_NODES";

	private static final SharedResource<Shared> SHARED =
			new SharedResource<>("a Redis Cluster", RedisClusterExtension::provide);

	/** The shared cluster, started on first use. */
	public static RedisClusterEndpoint shared() {
		return SHARED.get().endpoint();
	}

	/**
	 * The shared cluster's processes.
	 *
	 * @throws IllegalStateException if the cluster is external ({@value #REDIS_CLUSTER_NODES_ENV})
	 */
	public static RedisCluster sharedCluster() {
		Shared shared = SHARED.get();
		if (shared.cluster() == null) {
			throw new IllegalStateException("This test needs a Redis Cluster it controls, but " + REDIS_CLUSTER_NODES_ENV
					+ "=" + shared.endpoint().nodes() + " points to an external cluster");
		}
		return shared.cluster();
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		SHARED.get();
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		RedisCluster cluster = SHARED.get().cluster();
		if (cluster != null && cluster.hasStoppedNodes()) {
			cluster.restartStoppedNodes();
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
		Class<?> type = parameter.getParameter().getType();
		return type == RedisClusterEndpoint.class || type == RedisCluster.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
		SHARED.closeAtEndOfRun(context);
		try {
			return parameter.getParameter().getType() == RedisClusterEndpoint.class ? shared() : sharedCluster();
		}
		catch (RuntimeException ex) {
			throw new ParameterResolutionException(ex.getMessage(), ex);
		}
	}

	private static Shared provide() {
		String nodes = System.getenv(REDIS_CLUSTER_NODES_ENV);
		if (nodes != null && !nodes.isBlank()) {
			RedisClusterEndpoint endpoint = RedisClusterEndpoint.external(nodes);
			try {
				endpoint.seeds().get(0).ping();
			}
			catch (RuntimeException ex) {
				throw new IllegalStateException(REDIS_CLUSTER_NODES_ENV + "=" + nodes + ": first seed does not answer PING: "
						+ ex, ex);
			}
			return new Shared(endpoint, null);
		}
		try {
			RedisCluster cluster = RedisCluster.start();
			return new Shared(cluster.endpoint(), cluster);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("Cannot start a Redis Cluster for the tests. Install redis-server, set "
					+ RedisBinary.ENV + " to an executable, or set " + REDIS_CLUSTER_NODES_ENV
					+ " to use a running cluster. Cause: " + ex.getMessage(), ex);
		}
	}

	/** The shared cluster; {@code cluster} is null when external. */
	private record Shared(RedisClusterEndpoint endpoint, RedisCluster cluster) implements AutoCloseable {

		@Override
		public void close() {
			if (cluster != null) {
				cluster.close();
			}
		}
	}
}
