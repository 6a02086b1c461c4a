package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;

import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The allow and deny lists on the WebFlux filter, with two reactive instances sharing Redis: a subject and a client
 * network denied through one instance's actuator are refused on both with a 403 problem, an allow entry skips the
 * rule it names, and the entries lapse by their time to live.
 */
@RedisStandaloneTest
class WebFluxListsIntegrationTests {

	@Test
	void entriesChangedThroughOneReactiveInstanceApplyOnBoth(RedisEndpoint redis) {
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			TestHttp a = new TestHttp(port(first));
			TestHttp b = new TestHttp(port(second));
			assertThat(a.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"mallory-wf\", \"ttl\": \"2s\"}",
					Map.of()).statusCode()).isEqualTo(200);
			assertThat(a.call("POST", "/actuator/ratelimits/lists/allow",
					"{\"entry\": \"trent-wf\", \"rules\": [\"wf-allow\"]}", Map.of()).statusCode()).isEqualTo(200);
			RateLimitLists other = second.getBean(RateLimitLists.class);
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
				.until(() -> other.runtime(ListKind.DENY).size() == 1 && other.runtime(ListKind.ALLOW).size() == 1);
			for (TestHttp instance : new TestHttp[] { a, b }) {
				HttpResponse<String> refused = instance.get("/cf/wf/allow", Map.of("X-Client", "mallory-wf"));
				assertThat(refused.statusCode()).isEqualTo(403);
				assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
						(type) -> assertThat(type).startsWith("application/problem+json"));
				assertThat(refused.body()).contains("\"status\":403").contains("\"violated-policies\":[\"wf-allow\"]");
			}
			for (int i = 0; i < 6; i++) {
				assertThat(((i % 2 == 0) ? a : b).get("/cf/wf/allow", Map.of("X-Client", "trent-wf")).statusCode())
					.as("wf-allow (3 per hour) is skipped").isEqualTo(200);
			}
			assertThat(b.get("/cf/wf/local", Map.of("X-Client", "trent-wf")).statusCode()).isEqualTo(200);
			await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
				.until(() -> b.get("/cf/wf/allow", Map.of("X-Client", "mallory-wf")).statusCode() == 200);
			assertThat(a.get("/cf/wf/allow", Map.of("X-Client", "mallory-wf")).statusCode()).as("lapsed on both")
				.isEqualTo(200);
			assertThat(a.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"127.0.0.0/8\"}", Map.of())
				.statusCode()).isEqualTo(200);
			await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
				.until(() -> b.get("/cf/wf/allow", Map.of("X-Client", "anyone")).statusCode() == 403);
			assertThat(a.get("/cf/wf/allow", Map.of("X-Client", "anyone")).statusCode()).as("the client's network")
				.isEqualTo(403);
			HttpResponse<String> removed = b.call("DELETE", "/actuator/ratelimits/lists/deny?entry=127.0.0.0/8", null,
					Map.of());
			assertThat(removed.statusCode()).as(removed.body()).isEqualTo(200);
			assertThat(b.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"10.0.0.0/40\"}", Map.of())
				.statusCode()).isEqualTo(400);
		}
	}

	private static ConfigurableApplicationContext start(RedisEndpoint redis) {
		return new SpringApplicationBuilder(ConformanceTestApplication.class)
			.properties("spring.config.name=ratelimit-webflux-test", "server.port=0",
					"spring.main.web-application-type=reactive", ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY,
					"spring.data.redis.url=" + redis.uri(), "ratelimit.redis.timeout=2s",
					"management.endpoints.web.exposure.include=*", "ratelimit.key-prefix=rl-wf-lists",
					"ratelimit.lists.refresh-interval=1h")
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
