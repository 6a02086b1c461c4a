package dev.ratelimit.test.redis;

import java.time.Duration;
import java.util.function.Function;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;

/**
 * Short-lived Lettuce connections for the harness' own administrative commands (cluster setup,
 * health checks, FLUSHALL). One {@link RedisClient} (daemon threads) is shared per JVM; every call
 * opens and closes its own connection, so killed servers never leave broken connections behind.
 */
final class RedisAdmin {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private static RedisClient client;

	private RedisAdmin() {
	}

	/** Runs {@code action} on a fresh connection to {@code uri} (e.g. {@code redis://127.0.0.1:6379}). */
	static <T> T call(String uri, Function<RedisCommands<String, String>, T> action) {
		RedisURI redisUri = RedisURI.create(uri);
		redisUri.setTimeout(TIMEOUT);
		try (StatefulRedisConnection<String, String> connection = client().connect(redisUri)) {
			return action.apply(connection.sync());
		}
	}

	/** {@code CLUSTER NODES} of the node at {@code uri}, as seen by that node. */
	static Partitions clusterNodes(String uri) {
		String nodes = call(uri, RedisCommands::clusterNodes);
		return ClusterPartitionParser.parse(nodes);
	}

	private static synchronized RedisClient client() {
		if (client == null) {
			client = RedisClient.create();
			client.setOptions(ClientOptions.builder().autoReconnect(false).build());
		}
		return client;
	}
}
