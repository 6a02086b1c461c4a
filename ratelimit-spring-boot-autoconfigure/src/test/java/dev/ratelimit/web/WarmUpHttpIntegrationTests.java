package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
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
 * Warm-up over HTTP with two application instances sharing one Redis: the key's warmth is in Redis, so both instances
 * state the same quota in their headers; a cold key hands out a third of its burst, and a key in use reaches the full
 * rate once it has been used for the warm-up period, on either instance.
 */
@RedisStandaloneTest
class WarmUpHttpIntegrationTests {

	private static final Pattern QUOTA = Pattern.compile("\"(\\w+)\";q=(\\d+);");

	@Test
	void twoInstancesShareOneKeysWarmth(RedisEndpoint redis) {
		redis.flushAll();
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			List<TestHttp> instances = List.of(http(first), http(second));
			// 300 per hour from a third while cold, over an hour's warm-up: the burst a cold key hands out is 100
			int admitted = 0;
			List<Long> quotas = new ArrayList<>();
			for (int i = 0; i < 150; i++) {
				HttpResponse<String> response = instances.get(i % 2).get("/warm/slow");
				if (response.statusCode() == 200) {
					admitted++;
					quotas.add(quota(response));
				}
				else {
					assertThat(response.statusCode()).isEqualTo(429);
				}
			}
			// (the interval shortens as the key warms, so what was admitted at the cold one may leave one fewer)
			assertThat(admitted).as("a cold key hands out a third of its burst, whichever instance asks")
				.isBetween(98, 102);
			assertThat(quotas).as("the quota in the headers is the cold one, rising slowly").allSatisfy(
					(quota) -> assertThat(quota).isBetween(100L, 102L));
			assertThat(quotas).isSorted();
		}
	}

	@Test
	void keyInUseReachesTheFullRateAfterTheWarmUpPeriodOnBothInstances(RedisEndpoint redis) {
		redis.flushAll();
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			List<TestHttp> instances = List.of(http(first), http(second));
			// 600 per minute from a third, warming up over one second of use
			long firstQuota = quota(instances.get(0).get("/warm/fast"));
			assertThat(firstQuota).isBetween(200L, 300L);
			List<Long> quotas = new ArrayList<>();
			int[] turn = { 0 };
			await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
				HttpResponse<String> response = instances.get(turn[0]++ % 2).get("/warm/fast");
				assertThat(response.statusCode()).isEqualTo(200);
				quotas.add(quota(response));
				assertThat(quotas.get(quotas.size() - 1)).isEqualTo(600);
			});
			assertThat(quotas).as("rising with use, on both instances alike").isSorted();
			for (TestHttp instance : instances) {
				assertThat(quota(instance.get("/warm/fast"))).isEqualTo(600);
			}
		}
	}

	private static long quota(HttpResponse<String> response) {
		Matcher matcher = QUOTA.matcher(TestHttp.header(response, "RateLimit-Policy"));
		assertThat(matcher.find()).as(TestHttp.header(response, "RateLimit-Policy")).isTrue();
		assertThat(Long.parseLong(TestHttp.header(response, "X-RateLimit-Limit")))
			.isEqualTo(Long.parseLong(matcher.group(2)));
		return Long.parseLong(matcher.group(2));
	}

	private static ConfigurableApplicationContext start(RedisEndpoint redis) {
		return new SpringApplicationBuilder(WarmUpApplication.class)
			.properties("server.port=0", "spring.main.web-application-type=servlet",
					"spring.data.redis.url=" + redis.uri(), "ratelimit.key-prefix=rl-warm",
					"ratelimit.rules.slow.match.paths=/warm/slow", "ratelimit.rules.slow.key=global",
					"ratelimit.rules.slow.limit=300", "ratelimit.rules.slow.period=1h",
					"ratelimit.rules.slow.warm-up=1h", "ratelimit.rules.fast.match.paths=/warm/fast",
					"ratelimit.rules.fast.key=global", "ratelimit.rules.fast.limit=600",
					"ratelimit.rules.fast.period=1m", "ratelimit.rules.fast.warm-up=1s",
					"ratelimit.rules.fast.cold-factor=3")
			.run();
	}

	private static TestHttp http(ConfigurableApplicationContext context) {
		return new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
	@Import(WarmEndpoints.class)
	static class WarmUpApplication {

	}

	@RestController
	static class WarmEndpoints {

		@GetMapping({ "/warm/slow", "/warm/fast" })
		String ok() {
			return "ok";
		}

	}

}
