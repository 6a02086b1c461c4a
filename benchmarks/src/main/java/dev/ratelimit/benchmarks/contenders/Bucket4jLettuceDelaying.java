package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.proxy.optimization.DelayParameters;
import io.github.bucket4j.distributed.proxy.optimization.Optimizations;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * bucket4j's Lettuce backend with its delaying optimization, at the sync parameters of {@code ours-local}: each
 * bucket proxy (one per key, kept, as the optimization needs) consumes from its local copy and synchronizes with
 * Redis (GET + compare-and-swap) once 100 tokens are unsynchronized or 100 ms have passed
 * ({@code Optimizations.delaying(new DelayParameters(100, 100ms))}).
 */
public final class Bucket4jLettuceDelaying implements Contender {

	private static final DelayParameters DELAY = new DelayParameters(100, Duration.ofMillis(100));

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final ProxyManager<byte[]> buckets;

	public Bucket4jLettuceDelaying(RedisClient client) {
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.buckets = Bucket4jLettuce.casBasedBuilder(this.connection)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
	}

	@Override
	public Description description() {
		String version = ArtifactVersion.of("com.bucket4j", "bucket4j_jdk17-lettuce");
		return new Description("bucket4j-delaying", "bucket4j " + version + " (Lettuce, CAS, delaying optimization)",
				"bucket4j delaying", Role.PEER, "as *bucket4j*, with `Optimizations.delaying(new DelayParameters(100,"
						+ " 100ms))`: the sync parameters of *ours local*; one kept `BucketProxy` per key");
	}

	@Override
	public String method(int rules) {
		return "in memory; GET + compare-and-swap EVAL per key at 100 unsynchronized tokens or 100 ms";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		BucketConfiguration[] configurations = rules.stream()
			.map((rule) -> BucketConfiguration.builder()
				.addLimit((limit) -> limit.capacity(rule.perSecond()).refillGreedy(rule.perSecond(), Duration.ofSeconds(1)))
				.build())
			.toArray(BucketConfiguration[]::new);
		BucketProxy[][] proxies = new BucketProxy[subjects.length][rules.size()];
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				byte[] key = ("bucket4j-delaying:" + rules.get(r).name() + ":" + subjects[s])
					.getBytes(StandardCharsets.UTF_8);
				proxies[s][r] = this.buckets.builder()
					.withOptimization(Optimizations.delaying(DELAY))
					.build(key, configurations[r]);
			}
		}
		return (subject) -> {
			for (BucketProxy bucket : proxies[subject]) {
				if (!bucket.tryConsume(1)) {
					return false;
				}
			}
			return true;
		};
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
