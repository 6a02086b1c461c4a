package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.List;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two instances of an application behind a load balancer share one Redis: together they admit the rule's limit, not
 * twice the limit.
 */
@RedisStandaloneTest
class TwoInstancesIntegrationTests {

	@Test
	void twoApplicationContextsSharingRedisEnforceOneCombinedLimit(RedisEndpoint redis) throws Exception {
		redis.flushAll();
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			List<Integer> ports = List.of(port(first), port(second));
			assertThat(ports.get(0)).isNotEqualTo(ports.get(1));
			int admitted = 0;
			int denied = 0;
			for (int i = 0; i < 12; i++) {
				int port = ports.get(i % 2);
				HttpResponse<String> response = new TestHttp(port).get("/hello");
				if (response.statusCode() == 200) {
					admitted++;
				}
				else if (response.statusCode() == 429) {
					denied++;
				}
			}
			assertThat(admitted).as("rule 'hello' admits 3 per minute across both instances").isEqualTo(3);
			assertThat(denied).isEqualTo(9);
		}
	}

	/**
	 * The usernames one IP presented through either instance count together: u1 to u5 alternately through both are
	 * admitted, u6 is rejected by each instance, and a username seen by one is admitted by the other.
	 */
	@Test
	void twoApplicationContextsSharingRedisCountDistinctValuesTogether(RedisEndpoint redis) throws Exception {
		redis.flushAll();
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			List<TestHttp> instances = List.of(new TestHttp(port(first)), new TestHttp(port(second)));
			for (int i = 1; i <= 5; i++) {
				assertThat(instances.get(i % 2).get("/login?username=u" + i).statusCode()).as("u%d", i).isEqualTo(200);
			}
			for (TestHttp instance : instances) {
				assertThat(instance.get("/login?username=u6").statusCode()).isEqualTo(429);
			}
			assertThat(instances.get(0).get("/login?username=u1").statusCode()).as("u1, first seen by the other")
				.isEqualTo(200);
			assertThat(instances.get(1).get("/login?username=u2").statusCode()).as("u2, first seen by the other")
				.isEqualTo(200);
		}
	}

	private static ConfigurableApplicationContext start(RedisEndpoint redis) {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0",
					"spring.data.redis.url=" + redis.uri())
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
