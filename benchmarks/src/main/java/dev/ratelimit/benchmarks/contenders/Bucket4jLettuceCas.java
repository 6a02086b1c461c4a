package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * bucket4j's Lettuce backend ({@code LettuceBasedProxyManager}, compare-and-swap): the bucket state is read with
 * {@code GET}, computed in the JVM and written back by a compare-and-swap script, retried when another client wrote
 * in between. Greedy refill of the limit per second, capacity equal to the limit, keys expiring when the bucket would
 * be full. One shared Lettuce connection; a {@code BucketProxy} per request as bucket4j documents. Several rules are
 * several buckets tried one after the other, stopping at the first denial; they are not all or nothing.
 */
public final class Bucket4jLettuceCas implements Contender {

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final ProxyManager<byte[]> buckets;

	public Bucket4jLettuceCas(RedisClient client) {
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.buckets = Bucket4jLettuce.casBasedBuilder(this.connection)
			.expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
			.build();
	}

	@Override
	public Description description() {
		String version = ArtifactVersion.of("com.bucket4j", "bucket4j_jdk17-lettuce");
		return new Description("bucket4j", "bucket4j " + version + " (Lettuce, CAS)", "bucket4j", Role.PEER,
				"`LettuceBasedProxyManager` on one shared connection; greedy refill, capacity = limit");
	}

	@Override
	public String method(int rules) {
		return (rules == 1) ? "GET + compare-and-swap EVAL (more on conflicts)"
				: rules + " buckets one after the other, each GET + compare-and-swap EVAL";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		BucketConfiguration[] configurations = rules.stream()
			.map((rule) -> BucketConfiguration.builder()
				.addLimit((limit) -> limit.capacity(rule.perSecond()).refillGreedy(rule.perSecond(), Duration.ofSeconds(1)))
				.build())
			.toArray(BucketConfiguration[]::new);
		byte[][][] keys = new byte[subjects.length][rules.size()][];
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				keys[s][r] = ("bucket4j:" + rules.get(r).name() + ":" + subjects[s]).getBytes(StandardCharsets.UTF_8);
			}
		}
		return (subject) -> {
			for (int r = 0; r < configurations.length; r++) {
				if (!this.buckets.builder().build(keys[subject][r], configurations[r]).tryConsume(1)) {
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
