package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.stream.IntStream;

import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.test.FreshState;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys a client cannot multiply, over HTTP through Tomcat: client addresses come from {@code X-Forwarded-For} written
 * by a trusted proxy (the test client on the loopback address, the only internal proxy), as behind a load balancer,
 * and are keyed by their network; {@code endpoint} keys are the route templates of the handlers.
 */
@RedisStandaloneTest
@SpringBootTest(classes = { HttpTestApplication.class, ClientNetworksAndRoutesIntegrationTests.Endpoints.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-http-test", "server.forward-headers-strategy=native",
				"server.tomcat.remoteip.internal-proxies=127\\.0\\.0\\.1|0:0:0:0:0:0:0:1",
				"management.endpoints.web.exposure.include=ratelimits",
				"ratelimit.rules.per-network.match.paths=/keys/ip",
				"ratelimit.rules.per-network.key=ip",
				"ratelimit.rules.per-network.algorithm=fixed-window",
				"ratelimit.rules.per-network.limit=3",
				"ratelimit.rules.per-network.period=1h",
				"ratelimit.rules.per-user.match.paths=/keys/user",
				"ratelimit.rules.per-user.key=user",
				"ratelimit.rules.per-user.algorithm=fixed-window",
				"ratelimit.rules.per-user.limit=3",
				"ratelimit.rules.per-user.period=1h",
				"ratelimit.rules.per-endpoint.match.paths=/api/reports/**,/nowhere/**,/elsewhere/**",
				"ratelimit.rules.per-endpoint.key=endpoint",
				"ratelimit.rules.per-endpoint.algorithm=fixed-window",
				"ratelimit.rules.per-endpoint.limit=3",
				"ratelimit.rules.per-endpoint.period=1h",
				"ratelimit.rules.export-endpoint.match.enabled=false",
				"ratelimit.rules.export-endpoint.key=endpoint",
				"ratelimit.rules.export-endpoint.algorithm=fixed-window",
				"ratelimit.rules.export-endpoint.limit=2",
				"ratelimit.rules.export-endpoint.period=1h" })
class ClientNetworksAndRoutesIntegrationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private RateLimiter limiter;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@BeforeEach
	void flush() {
		FreshState.start(this.connectionFactory, this.limiter);
	}

	@Test
	void sixAddressesOfOneSlash64ShareOneQuota() {
		long admitted = IntStream.rangeClosed(1, 6)
			.mapToObj((host) -> from("fd00:1:2:3::" + host, "/keys/ip"))
			.filter((response) -> response.statusCode() == 200)
			.count();
		assertThat(admitted).isEqualTo(3);
		HttpResponse<String> denied = from("fd00:1:2:3:ffff:ffff:ffff:ffff", "/keys/ip");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("Retry-After")).isPresent();
	}

	@Test
	void differentSlash64NetworksHaveSeparateQuotas() {
		for (int i = 1; i <= 3; i++) {
			assertThat(from("fd00:1:2:3::" + i, "/keys/ip").statusCode()).isEqualTo(200);
		}
		assertThat(from("fd00:1:2:3::4", "/keys/ip").statusCode()).isEqualTo(429);
		for (int i = 1; i <= 3; i++) {
			assertThat(from("fd00:1:2:4::" + i, "/keys/ip").statusCode()).as("the next /64").isEqualTo(200);
		}
		assertThat(from("fd00:1:2:4::99", "/keys/ip").statusCode()).isEqualTo(429);
	}

	@Test
	void anIpv4MappedAddressIsItsIpv4Address() {
		assertThat(from("203.0.113.7", "/keys/ip").statusCode()).isEqualTo(200);
		assertThat(from("::ffff:203.0.113.7", "/keys/ip").statusCode()).isEqualTo(200);
		assertThat(from("203.0.113.7", "/keys/ip").statusCode()).isEqualTo(200);
		assertThat(from("::ffff:203.0.113.7", "/keys/ip").statusCode()).isEqualTo(429);
		assertThat(from("203.0.113.8", "/keys/ip").statusCode()).as("IPv4 addresses are whole by default")
			.isEqualTo(200);
	}

	@Test
	void aFallbackSubjectIsTheClientNetworkToo() {
		long admitted = IntStream.rangeClosed(1, 6)
			.mapToObj((host) -> from("fd00:1:2:3::" + host, "/keys/user"))
			.filter((response) -> response.statusCode() == 200)
			.count();
		assertThat(admitted).as("anonymous users of one /64").isEqualTo(3);
		assertThat(from("fd00:1:2:5::1", "/keys/user").statusCode()).as("another /64").isEqualTo(200);
	}

	@Test
	void theActuatorReadsAnAddressAsItsNetwork() throws Exception {
		for (int i = 1; i <= 2; i++) {
			from("fd00:1:2:3::" + i, "/keys/ip");
		}
		TestHttp http = new TestHttp(this.port);
		JsonNode subject = json.readTree(http.get("/actuator/ratelimits/per-network/fd00:1:2:3::77").body());
		assertThat(subject.get("subject").asString()).isEqualTo("fd00:1:2:3::/64");
		assertThat(subject.get("remaining").asLong()).isEqualTo(1);
		JsonNode network = json.readTree(http.get("/actuator/ratelimits/per-network/fd00:1:2:3::/64").body());
		assertThat(network.get("remaining").asLong()).isEqualTo(1);
		assertThat(http.call("DELETE", "/actuator/ratelimits/per-network/fd00:1:2:3::1", null, Map.of()).statusCode())
			.isEqualTo(200);
		assertThat(from("fd00:1:2:3::5", "/keys/ip").statusCode()).isEqualTo(200);
	}

	@Test
	void pathsOfOneRouteShareOneEndpointQuota() {
		assertThat(get("/api/reports/alice").statusCode()).isEqualTo(200);
		assertThat(get("/api/reports/bob").statusCode()).isEqualTo(200);
		assertThat(get("/api/reports/alice").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/api/reports/carol");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.body()).contains("per-endpoint");
		assertThat(get("/nowhere/1").statusCode()).as("another endpoint").isEqualTo(404);
	}

	@Test
	void pathsThatNoHandlerMapsShareOneEndpointQuota() {
		assertThat(get("/nowhere/1").statusCode()).isEqualTo(404);
		assertThat(get("/nowhere/2").statusCode()).isEqualTo(404);
		assertThat(get("/elsewhere/3").statusCode()).isEqualTo(404);
		assertThat(get("/elsewhere/4").statusCode()).isEqualTo(429);
		assertThat(get("/nowhere/5").statusCode()).isEqualTo(429);
		assertThat(get("/api/reports/alice").statusCode()).as("a mapped endpoint").isEqualTo(200);
	}

	@Test
	void anAnnotatedMethodsEndpointIsItsRouteToo() {
		assertThat(get("/api/exports/alice").statusCode()).isEqualTo(200);
		assertThat(get("/api/exports/bob").statusCode()).isEqualTo(200);
		assertThat(get("/api/exports/carol").statusCode()).isEqualTo(429);
	}

	private HttpResponse<String> from(String address, String path) {
		return new TestHttp(this.port).get(path, Map.of("X-Forwarded-For", address));
	}

	private HttpResponse<String> get(String path) {
		return new TestHttp(this.port).get(path);
	}

	@RestController
	static class Endpoints {

		@GetMapping({ "/keys/ip", "/keys/user" })
		String keys() {
			return "ok";
		}

		@GetMapping("/api/reports/{user}")
		String report(@PathVariable String user) {
			return "report";
		}

		@GetMapping("/api/exports/{user}")
		@RateLimited(rule = "export-endpoint")
		String export(@PathVariable String user) {
			return "export";
		}

	}

}
