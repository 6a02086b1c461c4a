package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.function.LongPredicate;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application under concurrent HTTP load loses its Redis (the process is killed, or it becomes slower than the
 * limiter's timeout) and gets it back. Rules with {@code on-store-failure: local} and {@code allow} never answer
 * 5xx, {@code deny} rules answer 503 with {@code Retry-After}, no request waits much longer than the limiter's
 * timeout, and decisions return to Redis by themselves.
 */
class RedisOutageIntegrationTests {

	/** The limiter's timeout in ratelimit-outage-test.yml. */
	private static final long TIMEOUT_MILLIS = 250;

	private static final List<String> PATHS = List.of("/hello", "/open", "/retry");

	/** Requests each phase (before, during, after the outage) must complete before the test moves on. */
	private static final int REQUESTS_PER_PHASE = 600;

	private static final Log logger = LogFactory.getLog(RedisOutageIntegrationTests.class);

	@Test
	void killedRedisFallsBackPerRuleAndRecoversByItself() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				ConfigurableApplicationContext app = start(redis.port())) {
			ResilientRateLimiter limiter = (ResilientRateLimiter) app.getBean(RateLimiter.class);
			long killedAt;
			long restartAt;
			long recoveredAt;
			List<OutageLoad.Sample> samples;
			try (OutageLoad load = new OutageLoad(OutageLoad.port(app), PATHS, 8)) {
				load.awaitRequests(REQUESTS_PER_PHASE, 0);
				assertThat(limiter.state()).isEqualTo(StoreState.REDIS);
				killedAt = System.nanoTime();
				redis.kill();
				await().atMost(Duration.ofSeconds(10)).until(() -> limiter.state() == StoreState.FALLBACK);
				// requests during the outage proper (from 500 ms after the kill, see below): with commands rejected
				// while disconnected the fallback answers so fast that the phase could otherwise end sooner
				load.awaitRequests(REQUESTS_PER_PHASE,
						Math.max(System.nanoTime(), killedAt + Duration.ofMillis(500).toNanos()));
				Health health = app.getBean(RateLimitHealthIndicator.class).health();
				assertThat(health.getStatus()).as("a working fallback keeps the application UP").isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("state", "fallback");
				restartAt = System.nanoTime();
				redis.restart();
				long restartedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.REDIS && dbSize(redis) > 0);
				recoveredAt = System.nanoTime();
				assertThat(Duration.ofNanos(recoveredAt - restartedAt)).isLessThanOrEqualTo(Duration.ofSeconds(5));
				load.awaitRequests(REQUESTS_PER_PHASE, recoveredAt + Duration.ofSeconds(1).toNanos());
				samples = load.samples();
			}
			assertGuarantees(samples, (start) -> start > killedAt + Duration.ofMillis(500).toNanos() && start < restartAt,
					(start) -> start > killedAt && start < restartAt);
			assertThat(samples.stream().filter((s) -> s.startNanos() > recoveredAt + Duration.ofSeconds(1).toNanos()))
				.as("after recovery every rule answers from Redis again")
				.isNotEmpty()
				.allMatch((s) -> s.status() == 200);
		}
	}

	@Test
	void redisSlowerThanTheTimeoutFallsBackPerRuleAndRecoversByItself() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				TcpProxy proxy = new TcpProxy(redis.host(), redis.port());
				ConfigurableApplicationContext app = start(proxy.port())) {
			ResilientRateLimiter limiter = (ResilientRateLimiter) app.getBean(RateLimiter.class);
			long slowFrom;
			long fallbackAt;
			long slowUntil;
			List<OutageLoad.Sample> samples;
			try (OutageLoad load = new OutageLoad(OutageLoad.port(app), PATHS, 8)) {
				load.awaitRequests(REQUESTS_PER_PHASE, 0);
				slowFrom = System.nanoTime();
				proxy.setReplyDelayMillis(TIMEOUT_MILLIS * 3);
				await().atMost(Duration.ofSeconds(10)).until(() -> limiter.state() == StoreState.FALLBACK);
				fallbackAt = System.nanoTime();
				load.awaitRequests(REQUESTS_PER_PHASE, fallbackAt);
				proxy.setReplyDelayMillis(0);
				slowUntil = System.nanoTime();
				await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.REDIS);
				samples = load.samples();
			}
			assertGuarantees(samples, (start) -> start > fallbackAt && start < slowUntil,
					(start) -> start > slowFrom && start < slowUntil);
		}
	}

	/**
	 * @param outage when the store was surely unavailable (deny rules must answer 503 then)
	 * @param degraded when the store was (becoming) unavailable: no request may wait for Redis's own timeouts
	 */
	private static void assertGuarantees(List<OutageLoad.Sample> samples, LongPredicate outage, LongPredicate degraded) {
		assertThat(samples).filteredOn((s) -> !s.path().equals("/retry"))
			.as("local and allow rules never answer 5xx")
			.allMatch((s) -> s.status() == 200);
		assertThat(samples).as("nothing answers 500").noneMatch((s) -> s.status() == 500);
		List<OutageLoad.Sample> denyDuringOutage = samples.stream()
			.filter((s) -> s.path().equals("/retry") && outage.test(s.startNanos()))
			.toList();
		assertThat(denyDuringOutage).isNotEmpty().allMatch((s) -> s.status() == 503 && s.retryAfter());
		List<OutageLoad.Sample> during = samples.stream().filter((s) -> degraded.test(s.startNanos())).toList();
		assertThat(during).hasSizeGreaterThan(100);
		logger.info("outage: " + samples.size() + " requests in all, " + during.size() + " while degraded, p99 "
				+ OutageLoad.p99Millis(during) + " ms, " + denyDuringOutage.size()
				+ " deny-rule requests answered 503");
		// A bound on every request, not a percentile: no request may wait anywhere near Lettuce's connect (10 s) or
		// command (60 s) timeouts. The limiter's own timeout is TIMEOUT_MILLIS; the margin absorbs a busy CI machine.
		assertThat(during).as("no request waits for Redis while it is unavailable")
			.allMatch((s) -> s.latencyNanos() < Duration.ofSeconds(2).toNanos());
	}

	private static ConfigurableApplicationContext start(int redisPort) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-outage-test", "server.port=0", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redisPort, "logging.level.dev.ratelimit=WARN",
					"logging.level." + RedisOutageIntegrationTests.class.getName() + "=INFO")
			.run();
	}

	private static long dbSize(RedisServerProcess redis) {
		RedisClient client = RedisClient.create(redis.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().dbsize();
		}
		catch (RuntimeException ex) {
			return 0;
		}
		finally {
			client.shutdown();
		}
	}

}
