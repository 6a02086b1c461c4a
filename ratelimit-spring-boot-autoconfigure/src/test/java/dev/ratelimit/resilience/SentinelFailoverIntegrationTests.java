package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.redis.RedisSentinelGroup;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel-managed master (one replica, three Sentinels) is killed while 8 HTTP clients use rules of every
 * {@code on-store-failure} mode; the Sentinels promote the replica, the limiter finds it by itself, and the killed
 * server comes back as a replica. No {@code local} or {@code allow} request fails, {@code deny} requests answer 503
 * with {@code Retry-After} only while the failover lasts, the outage is logged once, and no key is charged in Redis
 * more than Redis's decisions admitted, give or take the requests in flight when the master died (which may have run
 * there without their reply ever arriving): nothing decided without Redis during the failover was queued and charged
 * after the reconnect.
 */
@ExtendWith(OutputCaptureExtension.class)
class SentinelFailoverIntegrationTests {

	private static final List<String> PATHS = List.of("/hello", "/open", "/retry");

	/** The rule of each path (ratelimit-sentinel-test.yml). */
	private static final Map<String, String> RULE_OF_PATH = Map.of("/hello", "sentinel-local", "/open",
			"sentinel-allow", "/retry", "sentinel-deny");

	private static final int REQUESTS_PER_PHASE = 300;

	private static final Log logger = LogFactory.getLog(SentinelFailoverIntegrationTests.class);

	@Test
	void masterKilledUnderLoadFailsOverWithoutPhantomChargesOr5xxOutsideDenyRules(CapturedOutput output)
			throws Exception {
		Map<String, AtomicInteger> admittedByRedis = new ConcurrentHashMap<>();
		RateLimitListener counting = new RateLimitListener() {

			@Override
			public void onVerdict(Verdict verdict, Source source) {
				if (source == Source.STORE) {
					for (int i = 0; i < verdict.checks().size(); i++) {
						RateLimitCheck check = verdict.checks().get(i);
						if (verdict.decisions().get(i).allowed() && verdict.allowed()) {
							admittedByRedis.computeIfAbsent(check.policy().name(), (name) -> new AtomicInteger())
								.incrementAndGet();
						}
					}
				}
			}

		};
		try (RedisSentinelGroup sentinel = RedisSentinelGroup.start();
				ConfigurableApplicationContext app = start(sentinel, counting)) {
			ResilientRateLimiter limiter = (ResilientRateLimiter) app.getBean(RateLimiter.class);
			RedisServerProcess oldMaster = sentinel.initialMaster();
			long killedAt;
			long killReturnedAt;
			long recoveredAt;
			long rejoinedAt;
			int logFrom;
			List<OutageLoad.Sample> samples;
			try (OutageLoad load = new OutageLoad(OutageLoad.port(app), PATHS, 8)) {
				load.awaitRequests(REQUESTS_PER_PHASE, 0);
				assertThat(limiter.state()).isEqualTo(StoreState.REDIS);
				logFrom = output.getOut().length();
				killedAt = System.nanoTime();
				oldMaster.kill();
				killReturnedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(10)).until(() -> limiter.state() == StoreState.FALLBACK);
				await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
					.until(() -> sentinel.masterPort() == sentinel.initialReplica().port());
				long promotedAt = System.nanoTime();
				await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
					.until(() -> limiter.state() == StoreState.REDIS);
				recoveredAt = System.nanoTime();
				logger.info("Sentinel failover: promoted " + Duration.ofNanos(promotedAt - killedAt).toMillis()
						+ " ms after the kill, decisions from Redis again "
						+ Duration.ofNanos(recoveredAt - promotedAt).toMillis() + " ms after the promotion");
				load.awaitRequests(REQUESTS_PER_PHASE, recoveredAt);
				// the killed server rejoins, as a replica of the new master
				oldMaster.restart();
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
					.until(() -> RedisSentinelGroup.info(oldMaster, "replication").contains("master_link_status:up"));
				rejoinedAt = System.nanoTime();
				load.awaitRequests(REQUESTS_PER_PHASE, rejoinedAt + Duration.ofSeconds(1).toNanos());
				samples = load.samples();
			}
			assertThat(samples).filteredOn((s) -> !s.path().equals("/retry"))
				.as("local and allow rules never answer 5xx")
				.allMatch((s) -> s.status() == 200);
			assertThat(samples).filteredOn((s) -> s.status() != 200)
				.as("only deny rules answer otherwise: 503 with Retry-After, and only while the failover lasts")
				.allMatch((s) -> s.path().equals("/retry") && s.status() == 503 && s.retryAfter()
						&& s.startNanos() > killedAt - Duration.ofSeconds(1).toNanos() && s.startNanos() < rejoinedAt);
			// The failover ends when the killed server has rejoined as a replica: seen on a loaded machine, its
			// return made Sentinel reconfigure it and a deny-rule request wait ~1 s and answer 503 after Redis
			// decisions had resumed (recoveredAt), so the window for 503s closes at the rejoin, not at recoveredAt.
			assertThat(samples).filteredOn((s) -> s.startNanos() > rejoinedAt + Duration.ofSeconds(1).toNanos())
				.as("after the failover every rule answers from Redis again")
				.isNotEmpty()
				.allMatch((s) -> s.status() == 200);
			assertThat(lines(output, logFrom, "Rate limit store unavailable")).isLessThanOrEqualTo(1);
			assertThat(lines(output, logFrom, "Rate limit store recovered")).isLessThanOrEqualTo(1);
			Map<String, Long> charged = charged(sentinel.initialReplica());
			assertThat(charged).as("a key per rule in the new master").hasSize(3);
			// a request in flight when the master died may have run there and reached the replica without its reply
			// ever reaching the limiter: the one charge no client can give back (IssuedCommands), at most one per
			// such request; anything beyond that would be a request decided without Redis and charged later
			Map<String, Long> inFlightAtKill = samples.stream()
				.filter((s) -> s.startNanos() < killReturnedAt && s.startNanos() + s.latencyNanos() > killedAt)
				.collect(Collectors.groupingBy((s) -> RULE_OF_PATH.get(s.path()), Collectors.counting()));
			logger.info("Requests in flight when the master was killed: " + inFlightAtKill + "; charged in Redis "
					+ charged + "; admitted by Redis " + admittedByRedis);
			charged.forEach((rule, count) -> assertThat(count)
				.as("requests charged to " + rule + " in Redis, at most those Redis admitted and those in flight at"
						+ " the kill")
				.isLessThanOrEqualTo(admittedByRedis.get(rule).get() + inFlightAtKill.getOrDefault(rule, 0L)));
		}
	}

	/** Returns each rule's count of charged requests in a server, from its fixed window's state. */
	private static Map<String, Long> charged(RedisServerProcess server) {
		Map<String, Long> charged = new TreeMap<>();
		RedisClient client = RedisClient.create(RedisURI.create(server.uri()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			for (String key : connection.sync().keys("rl-sentinel:*")) {
				String rule = key.substring(key.indexOf('{') + 1, key.indexOf(':', key.indexOf('{')));
				charged.merge(rule, Long.parseLong(connection.sync().get(key).split(" ")[1]), Long::sum);
			}
		}
		finally {
			client.shutdown();
		}
		return charged;
	}

	private static long lines(CapturedOutput output, int from, String text) {
		return output.getOut().substring(from).lines().filter((line) -> line.contains(text)).count();
	}

	private static ConfigurableApplicationContext start(RedisSentinelGroup sentinel, RateLimitListener listener) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-sentinel-test", "server.port=0",
					"spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER,
					"spring.data.redis.sentinel.nodes=" + String.join(",", sentinel.sentinelNodes()),
					"logging.level.dev.ratelimit=WARN",
					"logging.level." + SentinelFailoverIntegrationTests.class.getName() + "=INFO")
			.initializers((ConfigurableApplicationContext context) -> context.getBeanFactory()
				.registerSingleton("sentinelTestListener", listener))
			.run();
	}

}
