package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisClusterTest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of 3 masters with replicas loses the master that holds a hot key while 8 threads use it. No call
 * fails; during the gap the local fallback decides; after the replica takes over, the limit holds again.
 */
@RedisClusterTest
class ClusterFailoverIntegrationTests {

	private static final long LIMIT = 300;

	@Test
	void masterFailoverUnderLoadKeepsLimitsWithinTheDocumentedFallback(RedisCluster cluster) throws Exception {
		ClusterTopologyRefreshOptions refresh = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(1))
			.enableAllAdaptiveRefreshTriggers()
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisClusterConfiguration(cluster.endpoint().seedUris().stream()
					.map((uri) -> uri.replaceFirst("^redis://", ""))
					.toList()),
				LettuceClientConfiguration.builder()
					.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(refresh).build())
					.build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl-failover", Duration.ofMillis(200));
			AtomicBoolean recovered = new AtomicBoolean();
			AtomicInteger redisVerdictsAfterRecovery = new AtomicInteger();
			RateLimitListener redisVerdicts = new RateLimitListener() {

				@Override
				public void onVerdict(Verdict verdict, Source source) {
					if (source == Source.STORE && recovered.get()) {
						redisVerdictsAfterRecovery.incrementAndGet();
					}
				}

			};
			ResilientRateLimiter limiter = ResilientRateLimiter.builder(store)
				.fallbackStore(new LocalRateLimitStore(1_000))
				.circuitBreaker(CircuitBreaker.of("failover", CircuitBreakerConfig.custom()
					.minimumNumberOfCalls(5)
					.slidingWindowSize(20)
					.waitDurationInOpenState(Duration.ofMillis(500))
					.build()))
				.denyCache(false)
				.failureModes((name) -> StoreFailureMode.LOCAL)
				.unavailableRetryAfter(Duration.ofSeconds(1))
				.listener(redisVerdicts)
				.build();
			RateLimitPolicy policy = RateLimitPolicy.of("failover", Algorithm.GCRA, LIMIT, Duration.ofHours(1));
			RateLimitCheck check = RateLimitCheck.of(policy, "hot");
			AtomicInteger admitted = new AtomicInteger();
			AtomicInteger admittedAfterRecovery = new AtomicInteger();
			AtomicInteger failures = new AtomicInteger();
			AtomicBoolean running = new AtomicBoolean(true);
			ExecutorService pool = Executors.newFixedThreadPool(8);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				workers.add(pool.submit(() -> {
					while (running.get()) {
						try {
							Verdict verdict = limiter.evaluate(check);
							if (verdict.allowed()) {
								admitted.incrementAndGet();
								if (recovered.get()) {
									admittedAfterRecovery.incrementAndGet();
								}
							}
						}
						catch (RuntimeException ex) {
							failures.incrementAndGet();
						}
					}
					return null;
				}));
			}
			await().atMost(Duration.ofSeconds(10)).until(() -> admitted.get() >= LIMIT);
			cluster.killMasterForKey(store.key(policy, "hot"));
			// one master of three: the hot key's master's breaker opens, the others' stay closed
			await().atMost(Duration.ofSeconds(20)).until(() -> limiter.state() == StoreState.PARTIAL);
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.until(() -> limiter.state() == StoreState.REDIS
						&& limiter.circuitState() == CircuitBreaker.State.CLOSED);
			recovered.set(true);
			// the promoted replica must hold the limit over many decisions, not for some fixed time
			await().atMost(Duration.ofSeconds(30)).until(() -> redisVerdictsAfterRecovery.get() >= 2_000);
			running.set(false);
			for (Future<?> worker : workers) {
				worker.get();
			}
			pool.shutdown();
			assertThat(failures.get()).as("calls that failed").isZero();
			// Redis admits LIMIT; while the master is gone each instance's memory admits at most LIMIT more; writes
			// not yet replicated when the master died (at most one in flight per thread) may be admitted again.
			assertThat(admitted.get()).isBetween((int) LIMIT, (int) (2 * LIMIT + 8));
			assertThat(admittedAfterRecovery.get()).as("admitted by the promoted replica").isLessThanOrEqualTo(8);
		}
		finally {
			factory.destroy();
		}
	}

}
