package dev.ratelimit.redis;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The limiter's Redis with a memory limit: a policy that may evict its keys is reported at start-up and in health; a
 * Redis full under {@code noeviction} refuses every algorithm's call before anything is written, so every rule
 * follows its {@code on-store-failure} alike, and the state says "out of memory" without flapping.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisMemoryIntegrationTests {

	/** The paths of ratelimit-memory-test.yml: one rule per algorithm, each with on-store-failure deny. */
	private static final List<String> PATHS = List.of("/hello", "/composite/a", "/composite/b", "/search", "/shadow",
			"/retry", "/open");

	@Test
	void anEvictingPolicyIsWarnedAboutAtStartUpAndShownInHealth(CapturedOutput output) {
		try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory", "64mb", "--maxmemory-policy",
				"allkeys-lru"); ConfigurableApplicationContext app = start(redis.port())) {
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(output)
				.contains("Redis 127.0.0.1:" + redis.port() + " has maxmemory-policy allkeys-lru")
				.contains("set maxmemory-policy noeviction"));
			Map<String, Object> node = memoryOf(app, "127.0.0.1:" + redis.port());
			assertThat(node).containsEntry("maxmemoryPolicy", "allkeys-lru")
				.containsEntry("maxMemory", 64L * 1024 * 1024)
				.containsEntry("evictsLimiterKeys", true)
				.containsEntry("outOfMemory", false);
			assertThat((Long) node.get("usedMemory")).isPositive();
			assertThat(output.getOut()).containsOnlyOnce("has maxmemory-policy allkeys-lru");
		}
	}

	@Test
	void noEvictionWithHeadroomIsNotWarnedAbout(CapturedOutput output) {
		try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory", "64mb", "--maxmemory-policy",
				"noeviction"); ConfigurableApplicationContext app = start(redis.port())) {
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(memoryOf(app, "127.0.0.1:" + redis.port()))
					.containsEntry("maxmemoryPolicy", "noeviction")
					.containsEntry("evictsLimiterKeys", false));
			assertThat(output).doesNotContain("may evict rate limit keys");
			assertThat(health(app).getDetails()).doesNotContainKey("reason");
		}
	}

	@Test
	void aFullRedisFailsEveryAlgorithmAlikeWithoutWritingAndWithoutFlapping(CapturedOutput output) throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "noeviction");
				ConfigurableApplicationContext app = start(redis.port())) {
			TestHttp http = new TestHttp(port(app));
			for (String path : PATHS) {
				assertThat(http.get(path).statusCode()).as(path + " with room in Redis").isEqualTo(200);
			}
			redis(redis, (commands) -> {
				commands.flushall();
				String chunk = "x".repeat(64 * 1024);
				for (int i = 0; i < 16; i++) {
					commands.set("filler:" + i, chunk);
				}
				// a limit half a megabyte below what the fillers use: Redis stays full whatever else comes and goes
				long used = Long.parseLong(memoryField(commands.info("memory"), "used_memory"));
				commands.configSet("maxmemory", String.valueOf(used - 512 * 1024));
				return null;
			});
			for (int round = 0; round < 3; round++) {
				for (String path : PATHS) {
					HttpResponse<String> response = http.get(path);
					assertThat(response.statusCode()).as(path + " while Redis is full").isEqualTo(503);
					assertThat(TestHttp.header(response, "Retry-After")).as(path).isNotBlank();
				}
			}
			List<String> limiterKeys = redis(redis, (commands) -> commands.keys("rl-memory*"));
			assertThat(limiterKeys).as("limiter keys written").isEmpty();
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(health(app).getDetails()).containsEntry("reason", "out of memory"));
			assertThat(memoryOf(app, "127.0.0.1:" + redis.port())).containsEntry("outOfMemory", true);
			assertThat(output.getOut()).containsOnlyOnce("Redis 127.0.0.1:" + redis.port() + " is out of memory")
				.contains("Rate limit store unavailable (Redis is out of memory")
				.doesNotContain("has memory again")
				.doesNotContain("Rate limit store recovered");
			int unavailable = output.getOut().split("Rate limit store unavailable", -1).length - 1;
			assertThat(unavailable).as("'store unavailable' lines").isLessThanOrEqualTo(1);
		}
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> memoryOf(ConfigurableApplicationContext app, String node) {
		Map<String, Object> memory = (Map<String, Object>) health(app).getDetails().get("memory");
		assertThat(memory).as("memory details").isNotNull().containsKey(node);
		return (Map<String, Object>) memory.get(node);
	}

	private static Health health(ConfigurableApplicationContext app) {
		return app.getBean(RateLimitHealthIndicator.class).health();
	}

	private static String memoryField(String info, String field) {
		return info.lines()
			.filter((line) -> line.startsWith(field + ":"))
			.map((line) -> line.substring(field.length() + 1).trim())
			.findFirst()
			.orElseThrow();
	}

	private static <T> T redis(RedisServerProcess redis, Function<RedisCommands<String, String>, T> action) {
		RedisClient client = RedisClient.create(redis.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			return action.apply(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

	private static ConfigurableApplicationContext start(int redisPort) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-memory-test", "server.port=0", "spring.data.redis.host=127.0.0.1",
					"spring.data.redis.port=" + redisPort)
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
