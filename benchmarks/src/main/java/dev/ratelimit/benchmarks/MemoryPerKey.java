package dev.ratelimit.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures Redis memory per limited subject for every algorithm: {@code MEMORY USAGE} of one key written by one
 * request of a 16-character subject under rule {@code api} with prefix {@code rl}, and the {@code used_memory} delta
 * of 100,000 such keys divided by their number. Starts its own redis-server (the one on PATH, else the embedded
 * one). {@link #main} prints a Markdown table.
 */
public final class MemoryPerKey {

	private static final int KEYS = 100_000;

	private static final long[] DISTINCT_LIMITS = { 5, 512, 1_000, 10_000 };

	private MemoryPerKey() {
	}

	public static void main(String[] args) throws Exception {
		System.out.print(measure().markdown());
	}

	/** Measures every algorithm on a fresh redis-server. */
	public static Result measure() {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			RedisClient client = RedisClient.create(server.uri());
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()));
			factory.afterPropertiesSet();
			factory.start();
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				RedisCommands<String, String> redis = connection.sync();
				String version = redis.info("server").lines()
					.filter((line) -> line.startsWith("redis_version:"))
					.findFirst()
					.orElse("redis_version:?")
					.substring("redis_version:".length())
					.strip();
				List<Row> rows = new ArrayList<>();
				RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl", Duration.ofSeconds(30));
				for (Algorithm algorithm : Algorithm.values()) {
					if (algorithm == Algorithm.DISTINCT) {
						// one value per request: measured per subject at its limit below
						continue;
					}
					redis.flushall();
					RateLimitPolicy policy = RateLimitPolicy.of("api", algorithm, 100, Duration.ofDays(1));
					store.evaluate(List.of(RateLimitCheck.of(policy, subject(0))));
					Long usage = redis.memoryUsage(store.key(policy, subject(0)));
					redis.flushall();
					long before = usedMemory(redis);
					List<CompletableFuture<?>> pending = new ArrayList<>();
					for (int i = 0; i < KEYS; i++) {
						pending.add(store.evaluateAsync(List.of(RateLimitCheck.of(policy, subject(i)))));
						if (pending.size() == 1_000) {
							CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
							pending.clear();
						}
					}
					CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
					long perKey = (usedMemory(redis) - before) / KEYS;
					rows.add(new Row(algorithm.configName(), usage, perKey));
				}
				List<DistinctRow> distinct = new ArrayList<>();
				for (long limit : DISTINCT_LIMITS) {
					redis.flushall();
					distinct.add(measureDistinct(store, redis, limit));
				}
				return new Result(version, server.binary().source().toString(), rows, distinct);
			}
			finally {
				factory.destroy();
				client.shutdown();
			}
		}
	}

	/**
	 * Fills one subject of a distinct rule (per day) with {@code limit} distinct values and returns the
	 * {@code MEMORY USAGE} of its two keys: the values (a set of tokens, or a HyperLogLog above 512) and the window
	 * string {@code <key>:w}.
	 */
	private static DistinctRow measureDistinct(RedisRateLimitStore store, RedisCommands<String, String> redis,
			long limit) {
		RateLimitPolicy policy = RateLimitPolicy.of("login", Algorithm.DISTINCT, limit, Duration.ofDays(1));
		String subject = "203.0.113.42";
		List<CompletableFuture<?>> pending = new ArrayList<>();
		for (long i = 0; i < limit; i++) {
			pending.add(store.evaluateAsync(List.of(RateLimitCheck.distinct(policy, subject, "user-" + i, false))));
		}
		CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
		String key = store.key(policy, subject);
		return new DistinctRow(limit, redis.type(key), redis.memoryUsage(key), redis.memoryUsage(key + ":w"));
	}

	/** Returns a 16-character subject, e.g. {@code user-00000000042}. */
	private static String subject(int i) {
		return String.format(Locale.ROOT, "user-%011d", i);
	}

	private static long usedMemory(RedisCommands<String, String> redis) {
		return redis.info("memory").lines()
			.filter((line) -> line.startsWith("used_memory:"))
			.mapToLong((line) -> Long.parseLong(line.substring("used_memory:".length()).strip()))
			.findFirst()
			.orElseThrow();
	}

	/**
	 * The memory of every algorithm.
	 *
	 * @param redisVersion the server version
	 * @param redisSource where the server binary came from ({@code PATH}, {@code EMBEDDED}, ...)
	 * @param rows one row per algorithm (but distinct)
	 * @param distinct the memory of one subject of a distinct rule filled to its limit, per limit
	 */
	public record Result(String redisVersion, String redisSource, List<Row> rows, List<DistinctRow> distinct) {

		/** Returns the Markdown description line and table. */
		public String markdown() {
			StringBuilder out = new StringBuilder();
			out.append("Redis ").append(this.redisVersion).append(" (").append(this.redisSource)
				.append("), key `rl:{api:<16 chars>}`, 100 per day (so no key expires during the run),"
						+ " one request of cost 1 per key.\n\n");
			out.append("| algorithm | MEMORY USAGE of one key (bytes) | used_memory delta per key over 100k keys (bytes) |\n");
			out.append("| --- | ---: | ---: |\n");
			for (Row row : this.rows) {
				out.append(String.format(Locale.ROOT, "| %s | %d | %d |%n", row.algorithm(), row.memoryUsage(),
						row.usedMemoryPerKey()));
			}
			out.append("\nDistinct: one subject (`rl:{login:203.0.113.42}`) filled with `limit` distinct values, per day.\n\n");
			out.append("| limit | values kept as | MEMORY USAGE of the values key (bytes) | MEMORY USAGE of `<key>:w` (bytes) | per subject (bytes) |\n");
			out.append("| ---: | --- | ---: | ---: | ---: |\n");
			for (DistinctRow row : this.distinct) {
				out.append(String.format(Locale.ROOT, "| %,d | %s | %d | %d | %d |%n", row.limit(),
						row.type().equals("set") ? "set of tokens (exact)" : "HyperLogLog", row.valuesUsage(),
						row.windowUsage(), row.valuesUsage() + row.windowUsage()));
			}
			return out.toString();
		}

		/** Returns the row of an algorithm by its configuration name. */
		public Row row(String algorithm) {
			return this.rows.stream().filter((row) -> row.algorithm().equals(algorithm)).findFirst().orElseThrow();
		}

	}

	/**
	 * One algorithm's memory.
	 *
	 * @param algorithm the algorithm's configuration name
	 * @param memoryUsage {@code MEMORY USAGE} of one key, in bytes
	 * @param usedMemoryPerKey growth of {@code used_memory} per key over 100,000 keys, in bytes
	 */
	public record Row(String algorithm, long memoryUsage, long usedMemoryPerKey) {
	}

	/**
	 * One subject of a distinct rule filled to its limit.
	 *
	 * @param limit the limit (and the number of values presented)
	 * @param type the Redis type of the values key ({@code set}, or {@code string} for a HyperLogLog)
	 * @param valuesUsage {@code MEMORY USAGE} of the values key, in bytes
	 * @param windowUsage {@code MEMORY USAGE} of the window key, in bytes
	 */
	public record DistinctRow(long limit, String type, long valuesUsage, long windowUsage) {
	}

}
