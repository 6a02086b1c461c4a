package dev.ratelimit.gateway;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A gateway on a random port, with routes to a local backend under {@code ratelimit.*} rules, on a real Redis: the
 * {@code RateLimit} route filter and the gateway's {@code RequestRateLimiter} with the {@code ratelimit} limiter admit
 * the rule's limit with the standard headers, then deny with them (the route filter with problem+json), and a stopped
 * Redis gets each rule's {@code on-store-failure}.
 */
class RateLimitGatewayIntegrationTests {

	private static LocalBackend backend;

	private static RedisServerProcess redis;

	private static ConfigurableApplicationContext gateway;

	private static TestHttp http;

	@BeforeAll
	static void start() {
		backend = LocalBackend.start();
		redis = RedisServerProcess.start();
		gateway = startGateway(redis, backend);
		http = new TestHttp(port(gateway));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		redis.close();
		backend.close();
	}

	@BeforeEach
	void flush() {
		redis.endpoint().flushAll();
	}

	static ConfigurableApplicationContext startGateway(RedisServerProcess redis, LocalBackend backend) {
		return new SpringApplicationBuilder(GatewayTestApplication.class)
			.properties("spring.config.name=ratelimit-gateway-test", "server.port=0",
					"spring.main.web-application-type=reactive", "spring.data.redis.url=" + redis.uri(),
					"backend.uri=" + backend.uri())
			.run();
	}

	static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	@Test
	void routeFilterAdmitsTheRuleLimitWithHeadersThenAnswersProblemJson() {
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> admitted = http.get("/limited/a");
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(admitted.body()).isEqualTo("backend");
			assertThat(TestHttp.header(admitted, "RateLimit-Policy")).isEqualTo("\"gw-route\";q=2;w=3600");
			assertThat(TestHttp.header(admitted, "RateLimit")).startsWith("\"gw-route\";r=" + remaining + ";t=");
		}
		HttpResponse<String> denied = http.get("/limited/a");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
		assertThat(TestHttp.header(denied, "RateLimit")).startsWith("\"gw-route\";r=0;t=");
		assertThat(TestHttp.header(denied, "RateLimit-Policy")).isEqualTo("\"gw-route\";q=2;w=3600");
		assertThat(Long.parseLong(TestHttp.header(denied, "Retry-After"))).isBetween(1L, 3600L);
		assertThat(denied.body()).contains("\"status\":429", "\"violated-policies\":[\"gw-route\"]",
				"\"instance\":\"/limited/a\"", "quota-exceeded");
	}

	@Test
	void routeFilterAppliesTheRuleOwnKeyAndCost() {
		Map<String, String> alice = Map.of("X-Client", "alice");
		assertThat(TestHttp.header(http.get("/costly/a", alice), "RateLimit")).startsWith("\"gw-costly\";r=2;");
		assertThat(TestHttp.header(http.get("/costly/a", alice), "RateLimit")).startsWith("\"gw-costly\";r=0;");
		assertThat(http.get("/costly/a", alice).statusCode()).isEqualTo(429);
		assertThat(http.get("/costly/a", Map.of("X-Client", "bob")).statusCode()).as("another key's quota")
			.isEqualTo(200);
	}

	@Test
	void requestRateLimiterWithTheRatelimitLimiterCountsPerKeyWithHeaders() {
		Map<String, String> alice = Map.of("X-Client", "alice");
		for (int remaining = 1; remaining >= 0; remaining--) {
			HttpResponse<String> admitted = http.get("/classic/a", alice);
			assertThat(admitted.statusCode()).isEqualTo(200);
			assertThat(TestHttp.header(admitted, "RateLimit-Policy")).isEqualTo("\"gw-classic\";q=2;w=3600");
			assertThat(TestHttp.header(admitted, "RateLimit")).startsWith("\"gw-classic\";r=" + remaining + ";t=");
		}
		HttpResponse<String> denied = http.get("/classic/a", alice);
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(TestHttp.header(denied, "RateLimit")).startsWith("\"gw-classic\";r=0;t=");
		assertThat(Long.parseLong(TestHttp.header(denied, "Retry-After"))).isBetween(1L, 3600L);
		assertThat(http.get("/classic/a", Map.of("X-Client", "bob")).statusCode()).as("another key's quota")
			.isEqualTo(200);
	}

	@Test
	void stoppedRedisGetsEachRuleFailureMode() {
		LocalBackend ownBackend = LocalBackend.start();
		try (RedisServerProcess ownRedis = RedisServerProcess.start();
				ConfigurableApplicationContext ownGateway = startGateway(ownRedis, ownBackend)) {
			TestHttp own = new TestHttp(port(ownGateway));
			assertThat(own.get("/closed/a").statusCode()).isEqualTo(200);
			assertThat(own.get("/open/a").statusCode()).isEqualTo(200);
			ownRedis.stop();
			await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
				HttpResponse<String> closed = own.get("/closed/a");
				assertThat(closed.statusCode()).isEqualTo(503);
				assertThat(TestHttp.header(closed, "Content-Type")).startsWith("application/problem+json");
				assertThat(closed.body()).contains("temporary-reduced-capacity", "\"violated-policies\":[\"gw-closed\"]");
			});
			HttpResponse<String> open = own.get("/open/a");
			assertThat(open.statusCode()).as("on-store-failure: allow").isEqualTo(200);
			assertThat(open.body()).isEqualTo("backend");
		}
		finally {
			ownBackend.close();
		}
	}

}
