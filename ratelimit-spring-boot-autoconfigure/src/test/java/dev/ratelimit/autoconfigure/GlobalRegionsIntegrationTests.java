package dev.ratelimit.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.region.PeerStatus;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code scope: global} across two regions on one machine: two Redis servers, each region's link to the other's Redis
 * through a TCP proxy that delays every reply by 100 ms, two application contexts per region, a rule of 100 per minute
 * on one key requested from both regions. The total admitted stays within the limit plus the documented bound
 * (docs/consistency.md), computed from when each region admitted; with the link cut for 5 s both regions keep deciding,
 * health names the unreachable region without going DOWN, and once the link returns both regions converge to the same
 * entries, whose sum is exactly what was admitted.
 */
class GlobalRegionsIntegrationTests {

	private static final long LIMIT = 100;

	private static final Duration PERIOD = Duration.ofMinutes(1);

	private static final Duration INTERVAL = Duration.ofMillis(100);

	private static final Duration LINK_DELAY = Duration.ofMillis(100);

	private final List<AutoCloseable> resources = new ArrayList<>();

	private RedisServerProcess euRedis;

	private RedisServerProcess usRedis;

	private TcpProxy toEu;

	private TcpProxy toUs;

	private final Map<String, List<ConfigurableApplicationContext>> regions = new HashMap<>();

	@BeforeEach
	void startRegions() throws Exception {
		this.euRedis = track(RedisServerProcess.start());
		this.usRedis = track(RedisServerProcess.start());
		this.toEu = track(new TcpProxy(this.euRedis.host(), this.euRedis.port()));
		this.toUs = track(new TcpProxy(this.usRedis.host(), this.usRedis.port()));
		this.toEu.setReplyDelayMillis(LINK_DELAY.toMillis());
		this.toUs.setReplyDelayMillis(LINK_DELAY.toMillis());
		this.regions.put("eu", List.of(start("eu", this.euRedis), start("eu", this.euRedis)));
		this.regions.put("us", List.of(start("us", this.usRedis), start("us", this.usRedis)));
	}

	private <T extends AutoCloseable> T track(T resource) {
		this.resources.add(0, resource);
		return resource;
	}

	private ConfigurableApplicationContext start(String region, RedisServerProcess redis) {
		return track(new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.properties("spring.data.redis.url=" + redis.uri(), "ratelimit.region=" + region,
					"ratelimit.regions.eu.url=redis://127.0.0.1:" + this.toEu.port(),
					"ratelimit.regions.us.url=redis://127.0.0.1:" + this.toUs.port(),
					"ratelimit.regions.replication-interval=" + INTERVAL.toMillis() + "ms",
					"ratelimit.rules.partner.limit=" + LIMIT, "ratelimit.rules.partner.period=1m",
					"ratelimit.rules.partner.algorithm=fixed-window", "ratelimit.rules.partner.spread-windows=true",
					"ratelimit.rules.partner.scope=global")
			.run());
	}

	@AfterEach
	void stop() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
	}

	@Test
	void bothRegionsTogetherAdmitTheLimitPlusAtMostTheBoundAndConverge() throws Exception {
		String subject = subjectEarlyInItsWindow();
		Map<String, List<Long>> admissions = load(subject, Duration.ofSeconds(3));
		long total = admissions.values().stream().mapToLong(List::size).sum();
		Duration horizon = INTERVAL.multipliedBy(2).plus(LINK_DELAY).plusMillis(100);
		long bound = bound(admissions, horizon);
		System.out.printf("global, link delay %d ms: eu %d + us %d = %d admitted of %d; bound %d (horizon %d ms)%n",
				LINK_DELAY.toMillis(), admissions.get("eu").size(), admissions.get("us").size(), total, LIMIT, bound,
				horizon.toMillis());
		assertThat(total).as("admitted").isGreaterThanOrEqualTo(LIMIT).isLessThanOrEqualTo(LIMIT + bound);
		assertConverged(subject, total);
	}

	@Test
	void aCutLinkKeepsBothRegionsDecidingAndTheyConvergeWhenItReturns() throws Exception {
		String subject = subjectEarlyInItsWindow();
		this.toEu.partition();
		this.toUs.partition();
		Map<String, List<Long>> admissions = load(subject, Duration.ofSeconds(5));
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			for (String region : List.of("eu", "us")) {
				assertThat(peers(region)).singleElement().satisfies((peer) -> {
					assertThat(peer.reachable()).isFalse();
					assertThat(peer.pending()).isPositive();
				});
				Health health = this.regions.get(region)
					.get(0)
					.getBean(RateLimitHealthIndicator.class)
					.health();
				assertThat(health.getStatus()).isEqualTo(Status.UP);
				assertThat(health.getDetails()).containsKey("unreachableRegions");
			}
		});
		long total = admissions.values().stream().mapToLong(List::size).sum();
		System.out.printf("global, link cut: eu %d + us %d = %d admitted of %d%n", admissions.get("eu").size(),
				admissions.get("us").size(), total, LIMIT);
		assertThat(admissions.get("eu")).as("eu, on its own").hasSize((int) LIMIT);
		assertThat(admissions.get("us")).as("us, on its own").hasSize((int) LIMIT);
		this.toEu.heal();
		this.toUs.heal();
		assertConverged(subject, total);
		assertThat(peers("eu").get(0).failures()).isPositive();
	}

	/**
	 * Returns the documented bound for what the regions admitted: the units that the regions other than the one that
	 * admitted last admitted within {@code horizon} (the replication interval twice, the link's delay, and 100 ms of
	 * scheduling) before that last admission, which it may not have seen.
	 */
	private static long bound(Map<String, List<Long>> admissions, Duration horizon) {
		String last = null;
		long lastAt = Long.MIN_VALUE;
		for (Map.Entry<String, List<Long>> region : admissions.entrySet()) {
			for (long at : region.getValue()) {
				if (at > lastAt) {
					lastAt = at;
					last = region.getKey();
				}
			}
		}
		long bound = 0;
		for (Map.Entry<String, List<Long>> region : admissions.entrySet()) {
			if (!region.getKey().equals(last)) {
				long from = lastAt - horizon.toNanos();
				bound += region.getValue().stream().filter((at) -> at > from).count();
			}
		}
		return bound;
	}

	/** Requests the key from both instances of both regions, 50 per second each, for a while. */
	private Map<String, List<Long>> load(String subject, Duration duration) throws Exception {
		Map<String, ConcurrentLinkedQueue<Long>> admitted = new HashMap<>();
		AtomicLong failures = new AtomicLong();
		ScheduledExecutorService load = Executors.newScheduledThreadPool(4);
		try {
			this.regions.forEach((region, contexts) -> {
				ConcurrentLinkedQueue<Long> times = new ConcurrentLinkedQueue<>();
				admitted.put(region, times);
				for (ConfigurableApplicationContext context : contexts) {
					RateLimiter limiter = context.getBean(RateLimiter.class);
					RateLimitRule rule = context.getBean(RateLimitRules.class).get("partner").orElseThrow();
					load.scheduleAtFixedRate(() -> {
						try {
							Verdict decision = limiter.evaluate(rule.check(rule.policy(), subject, 1));
							if (decision.allowed()) {
								times.add(System.nanoTime());
							}
						}
						catch (RuntimeException ex) {
							failures.incrementAndGet();
						}
					}, 0, 20, TimeUnit.MILLISECONDS);
				}
			});
			assertThat(load.awaitTermination(duration.toMillis(), TimeUnit.MILLISECONDS)).isFalse();
		}
		finally {
			load.shutdownNow();
			assertThat(load.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		}
		assertThat(failures).as("decisions that failed").hasValue(0);
		Map<String, List<Long>> result = new HashMap<>();
		admitted.forEach((region, times) -> result.put(region, new ArrayList<>(times)));
		return result;
	}

	private void assertConverged(String subject, long total) {
		String key = this.regions.get("eu")
			.get(0)
			.getBean(dev.ratelimit.redis.RedisRateLimitStore.class)
			.key(this.regions.get("eu").get(0).getBean(RateLimitRules.class).get("partner").orElseThrow().policy(),
					subject)
				+ ":g";
		await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
			Map<String, String> eu = entries(this.euRedis, key);
			Map<String, String> us = entries(this.usRedis, key);
			assertThat(eu).as("eu's entries, us's entries").isEqualTo(us);
			assertThat(eu.values().stream().mapToLong(Long::parseLong).sum()).as("the entries' sum").isEqualTo(total);
		});
		for (String region : List.of("eu", "us")) {
			RateLimiter limiter = this.regions.get(region).get(0).getBean(RateLimiter.class);
			RateLimitRule rule = this.regions.get(region).get(0).getBean(RateLimitRules.class).get("partner").orElseThrow();
			assertThat(limiter.evaluate(rule.check(rule.policy(), subject, 1)).allowed()).as(region + " after").isFalse();
		}
	}

	private List<PeerStatus> peers(String region) {
		return this.regions.get(region).get(0).getBean(GlobalRegions.class).peers();
	}

	private static Map<String, String> entries(RedisServerProcess redis, String key) {
		RedisClient client = RedisClient.create(redis.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return connection.sync().hgetall(key);
		}
		finally {
			client.shutdown();
		}
	}

	/**
	 * Returns a subject whose fixed window (spread by key) has at least 40 s left, so that no window boundary falls
	 * within a run.
	 */
	private static String subjectEarlyInItsWindow() {
		long period = PERIOD.toNanos() / 1_000;
		for (int i = 0;; i++) {
			String subject = "partner-" + i;
			long offset = FixedWindow.offsetFor("partner:" + subject, period);
			long now = System.currentTimeMillis() * 1_000;
			long end = Math.floorDiv(now - offset, period) * period + offset + period;
			if (end - now > 40_000_000L) {
				return subject;
			}
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
