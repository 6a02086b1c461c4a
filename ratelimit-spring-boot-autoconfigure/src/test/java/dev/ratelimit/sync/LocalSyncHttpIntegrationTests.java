package dev.ratelimit.sync;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.Hammer;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code sync: local} over HTTP with Redis away: a servlet application whose Redis is behind a TCP proxy answers eight
 * clients over ten API keys for a second, then for 5 s with the link to Redis cut, then for a second after it returns.
 * No response is a 5xx, requests are admitted all along, and once the views have flushed every key's count in Redis is
 * at least what was admitted under it.
 */
class LocalSyncHttpIntegrationTests {

	private static final int KEYS = 10;

	@Test
	void redisAwayForFiveSecondsUnderLoadGivesNo5xxAndLosesNoCount() throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				TcpProxy proxy = new TcpProxy(redis.host(), redis.port());
				ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
					.web(WebApplicationType.SERVLET)
					.properties("server.port=0", "spring.data.redis.url=redis://127.0.0.1:" + proxy.port(),
							"ratelimit.rules.api.key=header:X-Api-Key", "ratelimit.rules.api.algorithm=fixed-window",
							"ratelimit.rules.api.limit=1000000", "ratelimit.rules.api.period=1h",
							"ratelimit.rules.api.sync=local")
					.run()) {
			TestHttp http = new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
			Map<String, LongAdder> admitted = new ConcurrentHashMap<>();
			AtomicLong serverErrors = new AtomicLong();
			Hammer.Run before = load(http, admitted, serverErrors, Duration.ofSeconds(1));
			proxy.partition();
			Hammer.Run cut = load(http, admitted, serverErrors, Duration.ofSeconds(5));
			proxy.heal();
			Hammer.Run after = load(http, admitted, serverErrors, Duration.ofSeconds(1));
			System.out.printf("local over HTTP: %d admitted before, %d during the 5 s cut, %d after; %d 5xx%n",
					before.admitted(), cut.admitted(), after.admitted(), serverErrors.get());
			assertThat(serverErrors).as("5xx responses").hasValue(0);
			assertThat(cut.admitted()).as("admitted while Redis was away").isPositive();
			assertThat(after.admitted()).isPositive();
			RedisRateLimitStore store = context.getBean(RedisRateLimitStore.class);
			var policy = context.getBean(RateLimitRules.class).get("api").orElseThrow().policy();
			RedisClient client = RedisClient.create(redis.uri());
			try (StatefulRedisConnection<String, String> connection = client.connect()) {
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
					for (Map.Entry<String, LongAdder> key : admitted.entrySet()) {
						String value = connection.sync().get(store.key(policy, key.getKey()));
						assertThat(value).as(key.getKey()).isNotNull();
						long counted = Long.parseLong(value.split(" ")[1]);
						assertThat(counted).as("count in Redis of " + key.getKey())
							.isGreaterThanOrEqualTo(key.getValue().sum());
					}
				});
			}
			finally {
				client.shutdown();
			}
			assertThat(admitted).hasSize(KEYS);
		}
	}

	private static Hammer.Run load(TestHttp http, Map<String, LongAdder> admitted, AtomicLong serverErrors,
			Duration duration) throws Exception {
		return Hammer.run(8, duration, (thread) -> {
			int[] next = { thread };
			return () -> {
				String key = "key-" + (next[0]++ % KEYS);
				int status = http.get("/api/ping", Map.of("X-Api-Key", key)).statusCode();
				if (status >= 500) {
					serverErrors.incrementAndGet();
				}
				else if (status != 200 && status != 429) {
					throw new IllegalStateException("Unexpected status " + status);
				}
				if (status == 200) {
					admitted.computeIfAbsent(key, (k) -> new LongAdder()).increment();
					return true;
				}
				return false;
			};
		});
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
	@Import(Application.Ping.class)
	static class Application {

		@RestController
		static class Ping {

			@GetMapping("/api/ping")
			String ping() {
				return "pong";
			}

		}

	}

}
