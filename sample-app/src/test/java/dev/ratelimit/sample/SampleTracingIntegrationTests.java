package dev.ratelimit.sample;

import java.net.http.HttpResponse;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.tracing.DecisionTraces;
import dev.ratelimit.test.tracing.InMemoryTracing;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
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
@Import(InMemoryTracing.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s",
				"management.observations.enable.lettuce=true", "ratelimit.rules.traced.match.paths[0]=/",
				"ratelimit.rules.traced.key=ip", "ratelimit.rules.traced.algorithm=gcra",
				"ratelimit.rules.traced.limit=10", "ratelimit.rules.traced.period=10s",
				"ratelimit.rules.traced.max-wait=3s",
				"ratelimit.rules.traced.cost=#{request.getParameter('n') ?: 1}" })
class SampleTracingIntegrationTests {

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
		assertThat(http().get("/actuator/health").statusCode()).isEqualTo(200);
		assertThat(http().get("/?n=10").statusCode()).isEqualTo(200);
		assertThat(http().get("/?n=2").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = http().get("/?n=10");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).isPresent();
		System.out.println(DecisionTraces.assertAllowedWaitedDenied(this.tracer::getSpans, "traced", "servlet"));
	}

	private TestHttp http() {
		return new TestHttp(this.port);
	}

}
