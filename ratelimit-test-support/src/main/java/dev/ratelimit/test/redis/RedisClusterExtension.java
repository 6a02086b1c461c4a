package dev.ratelimit.test.redis;

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
public class RedisClusterExtension extends SharedRedisExtension<RedisClusterEndpoint, RedisCluster> {

	/** Env variable with comma-separated {@code host:port} seeds of an existing cluster. */
	public static final String REDIS_CLUSTER_NODES_ENV = "REDIS_CLUSTER_NODES";

	private static final Kind<RedisClusterEndpoint, RedisCluster> CLUSTER = new Kind<>("a Redis Cluster",
			REDIS_CLUSTER_NODES_ENV, RedisClusterEndpoint.class, RedisCluster.class, RedisClusterEndpoint::external,
			(endpoint) -> endpoint.seeds().get(0).ping(), RedisCluster::start, RedisCluster::endpoint, (cluster) -> {
				if (cluster.hasStoppedNodes()) {
					cluster.restartStoppedNodes();
				}
			});

	public RedisClusterExtension() {
		super(CLUSTER);
	}

	/** The shared cluster, started on first use. */
	public static RedisClusterEndpoint shared() {
		return CLUSTER.endpoint();
	}

	/**
	 * The shared cluster's processes.
	 * @throws IllegalStateException if the cluster is external ({@value #REDIS_CLUSTER_NODES_ENV})
	 */
	public static RedisCluster sharedCluster() {
		return CLUSTER.process();
	}

}
