package dev.ratelimit.web.reactive;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two WebFlux instances behind a load balancer share one Redis: together they admit the rule's limit, not twice the
 * limit, even when the requests reach both at once.
 */
@RedisStandaloneTest
class WebFluxTwoInstancesIntegrationTests {

	@Test
	void twoWebFluxInstancesSharingRedisEnforceOneCombinedLimit(RedisEndpoint redis) throws Exception {
		try (ConfigurableApplicationContext first = start(redis); ConfigurableApplicationContext second = start(redis)) {
			List<TestHttp> instances = List.of(new TestHttp(port(first)), new TestHttp(port(second)));
			assertThat(port(first)).isNotEqualTo(port(second));
			Map<String, String> client = Map.of("X-Client", UUID.randomUUID().toString());
			ExecutorService clients = Executors.newFixedThreadPool(8);
			try {
				List<CompletableFuture<Integer>> statuses = new ArrayList<>();
				for (int i = 0; i < 24; i++) {
					TestHttp instance = instances.get(i % 2);
					statuses.add(CompletableFuture
						.supplyAsync(() -> instance.get("/cf/wf/shared", client).statusCode(), clients));
				}
				List<Integer> answered = new ArrayList<>();
				for (CompletableFuture<Integer> status : statuses) {
					answered.add(status.get(30, TimeUnit.SECONDS));
				}
				assertThat(answered.stream().filter((status) -> status == 200).count())
					.as("rule 'wf-shared' admits 3 per minute across both instances").isEqualTo(3);
				assertThat(answered.stream().filter((status) -> status == 429).count()).isEqualTo(21);
			}
			finally {
				clients.shutdownNow();
			}
			for (TestHttp instance : instances) {
				assertThat(instance.get("/cf/wf/shared", client).statusCode()).as("each instance, afterwards")
					.isEqualTo(429);
			}
		}
	}

	private static ConfigurableApplicationContext start(RedisEndpoint redis) {
		return new SpringApplicationBuilder(ConformanceTestApplication.class)
			.properties("spring.config.name=ratelimit-webflux-test", "server.port=0",
					"spring.main.web-application-type=reactive", ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY,
					"spring.data.redis.url=" + redis.uri(), "ratelimit.redis.timeout=2s")
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

}
