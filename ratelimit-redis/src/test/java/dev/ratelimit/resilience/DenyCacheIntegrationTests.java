package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One hot key hammered by 64 threads: once it is denied, further denials come from memory. Redis's own command
 * statistics count the script calls.
 */
@RedisStandaloneTest
class DenyCacheIntegrationTests {

	@Test
	void atLeastNinetyNinePercentOfDenialsOnAHotKeyNeedNoRedisCall(RedisEndpoint redis) throws Exception {
		LettuceConnectionFactory factory = LettuceFactories.standalone(redis);
		RedisClient client = RedisClient.create(redis.uri());
		try (StatefulRedisConnection<String, String> admin = client.connect()) {
			ResilientRateLimiter limiter = ResilientRateLimiter
				.builder(new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl-hot", Duration.ofSeconds(5)))
				.fallbackStore(new LocalRateLimitStore(100))
				.circuitBreaker(CircuitBreaker.ofDefaults("hot"))
				.denyCacheMaximumEntries(1_000)
				.denyCacheMinimumWait(Duration.ofMillis(10))
				.build();
			RateLimitPolicy policy = RateLimitPolicy.of("hot", Algorithm.GCRA, 100, Duration.ofHours(1));
			admin.sync().configResetstat();
			AtomicInteger admitted = new AtomicInteger();
			AtomicInteger denied = new AtomicInteger();
			CountDownLatch start = new CountDownLatch(1);
			ExecutorService pool = Executors.newFixedThreadPool(64);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 64; t++) {
				workers.add(pool.submit(() -> {
					start.await();
					for (int i = 0; i < 200; i++) {
						if (limiter.evaluate(RateLimitCheck.of(policy, "hot-key")).allowed()) {
							admitted.incrementAndGet();
						}
						else {
							denied.incrementAndGet();
						}
					}
					return null;
				}));
			}
			start.countDown();
			for (Future<?> worker : workers) {
				worker.get();
			}
			pool.shutdown();
			long scriptCalls = scriptCalls(admin.sync().info("commandstats"));
			long deniedByRedis = scriptCalls - admitted.get();
			assertThat(admitted.get()).isEqualTo(100);
			assertThat(denied.get()).isEqualTo(64 * 200 - 100);
			assertThat(deniedByRedis).as("denials that needed a Redis call, of %d", denied.get())
				.isLessThanOrEqualTo(denied.get() / 100);
		}
		finally {
			client.shutdown();
			factory.destroy();
		}
	}

	/** Sums the calls of EVALSHA and EVAL in an INFO commandstats reply. */
	private static long scriptCalls(String commandStats) {
		return commandStats.lines()
			.filter((line) -> line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
			.mapToLong((line) -> Long.parseLong(line.replaceAll(".*calls=(\\d+).*", "$1")))
			.sum();
	}

}
