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
import dev.ratelimit.StoreState;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.rule.StoreFailureMode;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisClusterTest;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis Cluster of 3 masters with replicas loses the master that holds a hot key while 8 threads use it and 4 more
 * use keys on the other masters. No call fails; during the gap the local fallback decides for the hot key only (the
 * limiter keeps a circuit breaker per master), while the keys on the healthy masters keep being decided by Redis;
 * health names the failed master; the outage is logged once; after the replica takes over, the limit holds again.
 */
@RedisClusterTest
@ExtendWith(OutputCaptureExtension.class)
class ClusterFailoverIntegrationTests {

	private static final long LIMIT = 300;

	private static final Log logger = LogFactory.getLog(ClusterFailoverIntegrationTests.class);

	@Test
	void masterFailoverUnderLoadKeepsLimitsWithinTheDocumentedFallback(RedisCluster cluster, CapturedOutput output)
			throws Exception {
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
			RedisRateLimitStore store = new RedisRateLimitStore(factory, "rl-failover", Duration.ofMillis(200));
			AtomicBoolean recovered = new AtomicBoolean();
			AtomicBoolean failingOver = new AtomicBoolean();
			AtomicInteger redisVerdictsAfterRecovery = new AtomicInteger();
			AtomicInteger otherVerdictsAfterRecovery = new AtomicInteger();
			AtomicInteger healthyByRedis = new AtomicInteger();
			AtomicInteger healthyByFallback = new AtomicInteger();
			RateLimitListener redisVerdicts = new RateLimitListener() {

				@Override
				public void onVerdict(Verdict verdict, Source source) {
					if (source == Source.STORE && recovered.get()) {
						redisVerdictsAfterRecovery.incrementAndGet();
					}
					if (source != Source.STORE && recovered.get()) {
						otherVerdictsAfterRecovery.incrementAndGet();
					}
					if (failingOver.get() && verdict.checks().get(0).subject().startsWith("healthy-")) {
						(source == Source.FALLBACK ? healthyByFallback : healthyByRedis).incrementAndGet();
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
			RedisServerProcess hotMaster = cluster.masterForKey(store.key(policy, "hot"));
			List<RateLimitCheck> healthy = new ArrayList<>();
			for (int i = 0; healthy.size() < 4; i++) {
				if (cluster.masterForKey(store.key(policy, "healthy-" + i)) != hotMaster) {
					healthy.add(RateLimitCheck.of(policy, "healthy-" + i));
				}
			}
			AtomicInteger admitted = new AtomicInteger();
			AtomicInteger admittedAfterRecovery = new AtomicInteger();
			AtomicInteger failures = new AtomicInteger();
			AtomicBoolean running = new AtomicBoolean(true);
			ExecutorService pool = Executors.newFixedThreadPool(12);
			List<Future<?>> workers = new ArrayList<>();
			for (RateLimitCheck other : healthy) {
				workers.add(pool.submit(() -> {
					while (running.get()) {
						try {
							limiter.evaluate(other);
						}
						catch (RuntimeException ex) {
							failures.incrementAndGet();
						}
					}
					return null;
				}));
			}
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
			// the first Lettuce connections in a JVM can take seconds on a loaded machine
			await().atMost(Duration.ofSeconds(30)).until(() -> admitted.get() >= LIMIT);
			int logFrom = output.getOut().length();
			failingOver.set(true);
			cluster.killMasterForKey(store.key(policy, "hot"));
			await().atMost(Duration.ofSeconds(20)).until(() -> limiter.state() == StoreState.FALLBACK);
			assertThat(limiter.unavailableNodes()).as("health names the failed master")
				.containsExactly(hotMaster.host() + ":" + hotMaster.port());
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
				.until(() -> limiter.state() == StoreState.REDIS
						&& limiter.circuitBreaker().getState() == CircuitBreaker.State.CLOSED);
			failingOver.set(false);
			recovered.set(true);
			// the promoted replica must hold the limit over many decisions, not for some fixed time
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(redisVerdictsAfterRecovery.get())
				.as("Redis decisions after the recovery (%s others; now %s, unavailable %s)",
						otherVerdictsAfterRecovery.get(), limiter.state(), limiter.unavailableNodes())
				.isGreaterThanOrEqualTo(2_000));
			running.set(false);
			for (Future<?> worker : workers) {
				worker.get();
			}
			pool.shutdown();
			assertThat(failures.get()).as("calls that failed").isZero();
			int healthyDecisions = healthyByRedis.get() + healthyByFallback.get();
			logger.info("Cluster failover: of " + healthyDecisions + " decisions for keys on healthy masters, "
					+ healthyByRedis.get() + " by Redis");
			assertThat(healthyDecisions).as("decisions for keys on healthy masters during the failover")
				.isGreaterThan(50);
			assertThat(healthyByRedis.get()).as("of them decided by Redis").isGreaterThanOrEqualTo(
					(int) Math.ceil(healthyDecisions * 0.95));
			assertThat(lines(output, logFrom, "Rate limit store unavailable")).isLessThanOrEqualTo(1);
			assertThat(lines(output, logFrom, "Rate limit store recovered")).isLessThanOrEqualTo(1);
			// Redis admits LIMIT; while the master is gone each instance's memory admits at most LIMIT more; writes
			// not yet replicated when the master died (at most one in flight per thread) may be admitted again.
			assertThat(admitted.get()).isBetween((int) LIMIT, (int) (2 * LIMIT + 8));
			assertThat(admittedAfterRecovery.get()).as("admitted by the promoted replica").isLessThanOrEqualTo(8);
		}
		finally {
			factory.destroy();
		}
	}

	private static long lines(CapturedOutput output, int from, String text) {
		return output.getOut().substring(from).lines().filter((line) -> line.contains(text)).count();
	}

}
