package dev.ratelimit.gateway;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Set;

import dev.ratelimit.lists.ListEntry;
import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The gateway's {@code RateLimit} route filter consults the allow and deny lists as the web filters do. */
class RateLimitGatewayListsIntegrationTests {

	private static LocalBackend backend;

	private static RedisServerProcess redis;

	private static ConfigurableApplicationContext gateway;

	private static TestHttp http;

	@BeforeAll
	static void start() {
		backend = LocalBackend.start();
		redis = RedisServerProcess.start();
		gateway = RateLimitGatewayIntegrationTests.startGateway(redis, backend);
		http = new TestHttp(RateLimitGatewayIntegrationTests.port(gateway));
	}

	@AfterAll
	static void stop() {
		gateway.close();
		redis.close();
		backend.close();
	}

	@Test
	void routeFilterRefusesADeniedSubjectAndLetsAnAllowedOneSkipItsRule() {
		RateLimitLists lists = gateway.getBean(RateLimitLists.class);
		lists.replaceRuntime(Map.of(ListKind.DENY, List.of(ListEntry.parse("mallory")), ListKind.ALLOW,
				List.of(ListEntry.parse("trent").with(Set.of("gw-costly"), 0))));
		HttpResponse<String> refused = http.get("/costly/a", Map.of("X-Client", "mallory"));
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(TestHttp.header(refused, "Content-Type")).startsWith("application/problem+json");
		assertThat(refused.body()).contains("\"status\":403", "\"violated-policies\":[\"gw-costly\"]");
		for (int i = 0; i < 4; i++) {
			assertThat(http.get("/costly/a", Map.of("X-Client", "trent")).statusCode()).as("gw-costly is skipped")
				.isEqualTo(200);
		}
		for (int i = 0; i < 2; i++) {
			assertThat(http.get("/costly/a", Map.of("X-Client", "bob")).statusCode()).isEqualTo(200);
		}
		assertThat(http.get("/costly/a", Map.of("X-Client", "bob")).statusCode()).as("others keep the rule (4, cost 2)")
			.isEqualTo(429);
	}

}
