package dev.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import dev.ratelimit.test.tracing.DecisionTraces;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The servlet sample traced by an in-memory tracer: each request's HTTP server span has a {@code ratelimit decision}
 * child tagged with the rule and the outcome, under which is the span of the Redis command that decided (Lettuce's own
 * observation, switched on here with {@code management.observations.enable.lettuce=true}); a waited request also has
 * a {@code ratelimit wait} child. The rule {@code traced} (GCRA, 10 per 10 s, a burst of 10, max-wait 3 s, cost
 * {@code ?n=}) gives, in turn: 10 units allowed, 2 units waited (2 s less the time between the requests: the machine
 * may be slow), 10 units denied (a wait of 10 s or so).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s",
				"management.observations.enable.lettuce=true", "ratelimit.rules.traced.match.paths[0]=/",
				"ratelimit.rules.traced.key=ip", "ratelimit.rules.traced.algorithm=gcra",
				"ratelimit.rules.traced.limit=10", "ratelimit.rules.traced.period=10s",
				"ratelimit.rules.traced.max-wait=3s",
				"ratelimit.rules.traced.cost=#{request.getParameter('n') ?: 1}" })
class SampleTracingIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Autowired
	private SimpleTracer tracer;

	@Autowired
	private LettuceConnectionFactory connectionFactory;

	@BeforeEach
	void flush() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
	}

	@Test
	void allowedWaitedAndDeniedRequestsShowTheirDecisionAndItsRedisCallInTheRequestsTrace() throws Exception {
		// warm (the first requests of an application are slow), so that the next ones follow each other closely
		assertThat(get("/actuator/health").statusCode()).isEqualTo(200);
		assertThat(get("/?n=10").statusCode()).isEqualTo(200);
		assertThat(get("/?n=2").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/?n=10");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).isPresent();
		System.out.println(DecisionTraces.assertAllowedWaitedDenied(this.tracer::getSpans, "traced", "servlet"));
	}

	private HttpResponse<String> get(String path) throws Exception {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Tracing {

		@Bean
		SimpleTracer simpleTracer() {
			return new SimpleTracer();
		}

		@Bean
		DefaultTracingObservationHandler tracingObservationHandler(SimpleTracer simpleTracer) {
			return new DefaultTracingObservationHandler(simpleTracer);
		}

	}

}
