package dev.ratelimit.benchmarks.contenders;

import java.util.List;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisClusterEndpoint;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's limiter on a Redis Cluster: {@link StoreRateLimiter} over {@link RedisRateLimitStore} on a
 * {@link LettuceConnectionFactory} for the cluster, natural batching on: by default a batch holds one master's requests
 * across hash slots (decision 140), or with {@code acrossSlots} false those of one slot. Used by the cost model
 * ({@code benchmarks/run.sh model}).
 */
public final class OurClusterContender implements Contender {

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	private final boolean acrossSlots;

	/** @param cluster the cluster's seed nodes */
	public OurClusterContender(RedisClusterEndpoint cluster) {
		this(cluster, true);
	}

	/**
	 * Lanes per master (or slot) are the default's, or {@code -Dbench.cluster.lanes}.
	 * @param cluster the cluster's seed nodes
	 * @param acrossSlots whether a batch holds one master's requests ({@code ratelimit.redis.batch.across-slots})
	 */
	public OurClusterContender(RedisClusterEndpoint cluster, boolean acrossSlots) {
		this.connectionFactory = LettuceFactories.cluster(cluster);
		this.acrossSlots = acrossSlots;
		RedisBatching defaults = RedisBatching.DEFAULT;
		this.limiter = new StoreRateLimiter(new RedisRateLimitStore(SpringDataRedisConnection.of(this.connectionFactory),
				"rl", Blocking.TIMEOUT, null, LeaseIds.random(), new RedisBatching(true,
						Integer.getInteger("bench.cluster.lanes", defaults.lanes()),
						defaults.maxRequests(), defaults.maxChecks(), acrossSlots)));
	}

	@Override
	public Description description() {
		return new Description("ours-cluster", "ratelimit (this project), Redis Cluster", "ours on a cluster",
				Role.DIAGNOSTIC, "as *ours*, on a Redis Cluster of three masters (no replicas) on this machine; "
						+ (this.acrossSlots ? "batches form per master" : "batches form per hash slot"));
	}

	@Override
	public String method(int rules) {
		return this.acrossSlots
				? "1 EVALSHA of gcra.lua per master, keys undeclared, shared with that master's waiting requests"
				: "1 EVALSHA of gcra.lua per hash slot, shared with the requests of that slot waiting meanwhile";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		return OurContender.requests(this.limiter, rules, subjects);
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
