package dev.ratelimit.sample.reactive;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import dev.ratelimit.client.OutboundRateLimitExceededException;
import dev.ratelimit.client.RateLimitedWebClients;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.tracing.DecisionTraces;
import dev.ratelimit.test.tracing.InMemoryTracing;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The reactive sample traced by an in-memory tracer, as the servlet sample's tracing test: each request's HTTP server
 * span (WebFlux's, found by the filter in the Reactor context) has a {@code ratelimit decision} child tagged with the
 * rule and the outcome, under which is the span of the Redis command that decided (Lettuce's observation, on with
 * {@code management.observations.enable.lettuce=true}); a waited request also has a {@code ratelimit wait} child. The
 * rule {@code traced} (GCRA, 10 per 10 s, max-wait 3 s, cost {@code ?n=}) gives: 1 then 9 units allowed, 2 waited, 10 denied.
 * <p>
 * An outbound {@code WebClient} call through {@link RateLimitedWebClients#filter(String)} (rule
 * {@code traced-outbound}, 1 per 10 s) shows its decision (caller {@code outbound}) under the client's own span, which
 * is under the caller's observation: allowed, then denied; docs/observability.md shows these two trees.
 * <p>
 * With natural batching on (the default): a decision that finds a lane free is sent from its own call, under its
 * observation, including on the server's event loop (decision 105).
 */
@Import(InMemoryTracing.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s",
				"management.observations.enable.lettuce=true", "ratelimit.rules.traced.match.paths[0]=/api/hello",
				"ratelimit.rules.traced.key=ip", "ratelimit.rules.traced.algorithm=gcra",
				"ratelimit.rules.traced.limit=10", "ratelimit.rules.traced.period=10s",
				"ratelimit.rules.traced.max-wait=3s",
				"ratelimit.rules.traced.cost=#{request.getParameter('n') ?: 1}",
				"ratelimit.rules.traced-outbound.match.enabled=false", "ratelimit.rules.traced-outbound.limit=1",
				"ratelimit.rules.traced-outbound.period=10s" })
class ReactiveSampleTracingTests {

	@LocalServerPort
	private int port;

	@Autowired
	private SimpleTracer tracer;

	@Autowired
	private ObservationRegistry observationRegistry;

	@Autowired
	private RateLimitedWebClients webClients;

	@Test
	void allowedWaitedAndDeniedRequestsShowTheirDecisionAndItsRedisCallInTheRequestsTrace() throws Exception {
		// warm (the first requests of an application are slow), so that the next ones follow each other closely
		assertThat(http().get("/api/greeting?name=warm").statusCode()).isEqualTo(200);
		assertThat(http().get("/api/hello?n=1").statusCode()).isEqualTo(200);
		assertThat(http().get("/api/hello?n=9").statusCode()).isEqualTo(200);
		assertThat(http().get("/api/hello?n=2").statusCode()).isEqualTo(200);
		HttpResponse<String> denied = http().get("/api/hello?n=10");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("RateLimit-Policy")).isPresent();
		System.out.println(DecisionTraces.assertAllowedWaitedDenied(this.tracer::getSpans, "traced", "webflux"));
	}

	@Test
	void anOutboundWebClientCallShowsItsDecisionUnderTheClientsSpan() throws IOException {
		WebClient client = WebClient.builder()
			.baseUrl("http://localhost:" + this.port)
			.observationRegistry(this.observationRegistry)
			.filter(this.webClients.filter("traced-outbound"))
			.build();
		assertThat(call(client, "checkout").getStatusCode().value()).isEqualTo(200);
		assertThatExceptionOfType(OutboundRateLimitExceededException.class).isThrownBy(() -> call(client, "refund"))
			.satisfies((ex) -> assertThat(ex.getRule()).isEqualTo("traced-outbound"));
		String traces = DecisionTraces.assertOutboundAllowedDenied(this.tracer::getSpans, "traced-outbound");
		System.out.println(traces);
		assertThat(traces).contains("checkout", "refund");
		// docs/observability.md shows these two trees as they are (but for the port)
		String page = Files.readString(Path.of("../docs/observability.md"));
		assertThat(withoutPort(page)).contains(withoutPort(traces).strip());
	}

	private static String withoutPort(String text) {
		return text.replaceAll("localhost:\\d+", "localhost:PORT");
	}

	/** One call of the client under an observation of the caller's own, as a service's work would be. */
	private ResponseEntity<Void> call(WebClient client, String work) {
		Observation caller = Observation.createNotStarted(work, this.observationRegistry).start();
		try {
			return client.get()
				.uri("/api/greeting?name=outbound")
				.retrieve()
				.toBodilessEntity()
				.contextWrite((context) -> context.put(ObservationThreadLocalAccessor.KEY, caller))
				.block(Duration.ofSeconds(10));
		}
		finally {
			caller.stop();
		}
	}

	private TestHttp http() {
		return new TestHttp(this.port);
	}

}
