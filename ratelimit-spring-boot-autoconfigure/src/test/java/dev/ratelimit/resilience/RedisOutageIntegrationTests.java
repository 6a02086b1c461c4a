package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.function.LongPredicate;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
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

	private static final long TIMEOUT_MILLIS = 100;

	private static final List<String> PATHS = List.of("/hello", "/open", "/retry");

	@Test
	void killedRedisFallsBackPerRuleAndRecoversByItself() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				ConfigurableApplicationContext app = start(redis.port())) {
			ResilientRateLimiter limiter = (ResilientRateLimiter) app.getBean(RateLimiter.class);
			long killedAt;
			long restartedAt;
			long recoveredAt;
			List<OutageLoad.Sample> samples;
			try (OutageLoad load = new OutageLoad(port(app), PATHS, 8)) {
				pause(Duration.ofSeconds(6));
				assertThat(limiter.state()).isEqualTo(StoreState.REDIS);
				killedAt = System.nanoTime();
				redis.kill();
				pause(Duration.ofSeconds(8));
				assertThat(limiter.state()).isEqualTo(StoreState.FALLBACK);
				Health health = app.getBean(RateLimitHealthIndicator.class).health();
				assertThat(health.getStatus()).as("a working fallback keeps the application UP").isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsEntry("state", "fallback");
				redis.restart();
				restartedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.REDIS && dbSize(redis) > 0);
				recoveredAt = System.nanoTime();
				pause(Duration.ofSeconds(6));
				samples = load.samples();
			}
			assertThat(samples).hasSizeGreaterThan(1_000);
			assertThat(Duration.ofNanos(recoveredAt - restartedAt)).isLessThanOrEqualTo(Duration.ofSeconds(5));
			assertGuarantees(samples, (start) -> start > killedAt + Duration.ofMillis(500).toNanos() && start < restartedAt,
					(start) -> start > killedAt && start < restartedAt);
			assertThat(samples.stream().filter((s) -> s.startNanos() > recoveredAt + Duration.ofSeconds(1).toNanos()))
				.as("after recovery every rule answers from Redis again")
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
			long slowUntil;
			List<OutageLoad.Sample> samples;
			try (OutageLoad load = new OutageLoad(port(app), PATHS, 8)) {
				pause(Duration.ofSeconds(4));
				slowFrom = System.nanoTime();
				proxy.setReplyDelayMillis(TIMEOUT_MILLIS * 3);
				pause(Duration.ofSeconds(8));
				assertThat(limiter.state()).isEqualTo(StoreState.FALLBACK);
				proxy.setReplyDelayMillis(0);
				slowUntil = System.nanoTime();
				await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.REDIS);
				pause(Duration.ofSeconds(3));
				samples = load.samples();
			}
			assertGuarantees(samples, (start) -> start > slowFrom + Duration.ofSeconds(2).toNanos() && start < slowUntil,
					(start) -> start > slowFrom && start < slowUntil);
		}
	}

	/**
	 * @param outage when the store was surely unavailable (deny rules must answer 503 then)
	 * @param degraded when the store was (becoming) unavailable: latency must stay bounded
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
		System.out.printf("outage: %d requests in all, %d while degraded, p99 %d ms, %d deny-rule requests answered 503%n",
				samples.size(), during.size(), OutageLoad.p99Millis(during), denyDuringOutage.size());
		assertThat(OutageLoad.p99Millis(during)).as("p99 latency (ms) while Redis is unavailable")
			.isLessThanOrEqualTo(TIMEOUT_MILLIS + 50);
	}

	private static ConfigurableApplicationContext start(int redisPort) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-outage-test", "server.port=0", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redisPort, "logging.level.dev.ratelimit=WARN")
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
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

	/** Lets the load run for a while: the load itself is what the test observes, so here time must really pass. */
	private static void pause(Duration duration) {
		long until = System.nanoTime() + duration.toNanos();
		await().atMost(duration.plusSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> System.nanoTime() >= until);
	}

}
