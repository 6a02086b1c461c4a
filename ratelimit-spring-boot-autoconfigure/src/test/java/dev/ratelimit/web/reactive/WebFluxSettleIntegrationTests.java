package dev.ratelimit.web.reactive;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.RawStream;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConcurrentStreams;
import dev.ratelimit.web.ConformanceTestApplication;
import dev.ratelimit.web.StreamGates;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Settling after the response on WebFlux: a response header, and {@code Flux} streams that report their tokens with
 * {@code RateLimitContext.from(exchange)} and are settled when they complete or their client goes away; 1,000 of them
 * at once with a tenth of the clients hanging up (see {@link ConcurrentStreams}); each chunk reaches the client before
 * the next one is produced, through the limiter.
 */
@RedisStandaloneTest
@SpringBootTest(classes = WebFluxSettleTestApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-settle-test", "spring.main.web-application-type=reactive",
				ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY })
class WebFluxSettleIntegrationTests {

	private static final Duration CHUNK_TIMEOUT = Duration.ofSeconds(10);

	@LocalServerPort
	private int port;

	@Autowired
	private RateLimitUsage usage;

	@Autowired
	private StreamGates gates;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@Test
	void aResponseHeaderSettlesTheEstimate() {
		String id = UUID.randomUUID().toString();
		assertThat(new TestHttp(this.port).get("/settle/header?units=42&id=" + id).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(used("settle-header", id)).isEqualTo(42));
	}

	@Test
	void aThousandConcurrentStreamsAreEachChargedExactlyWhatTheServerProduced() throws Exception {
		long seed = System.nanoTime();
		long total = new ConcurrentStreams(this.port, this.gates, this.usage).run(1000, seed,
				(i) -> (i % 2 == 0) ? "/settle/stream/flux" : "/settle/stream/flux-sse");
		assertThat(total).as("seed " + seed).isPositive();
	}

	@Test
	void aFluxDeliversEachChunkAsItIsProduced() throws Exception {
		assertDeliveredChunkByChunk("/settle/gated/flux");
	}

	@Test
	void aServerSentEventFluxDeliversEachEventAsItIsProduced() throws Exception {
		assertDeliveredChunkByChunk("/settle/gated/flux-sse");
	}

	private void assertDeliveredChunkByChunk(String path) throws Exception {
		String id = UUID.randomUUID().toString();
		try (RawStream stream = RawStream.get(this.port, path + "?id=" + id, Map.of())) {
			assertThat(stream.awaitText("chunk-1", CHUNK_TIMEOUT)).as("chunk 1, while the server waits").isTrue();
			assertThat(stream.status()).isEqualTo(200);
			assertThat(stream.received()).as("the limiter's headers").contains("RateLimit-Policy:");
			assertThat(stream.received()).doesNotContain("chunk-2");
			this.gates.open(id, 2);
			assertThat(stream.awaitText("chunk-2", CHUNK_TIMEOUT)).as("chunk 2, while the server waits").isTrue();
			assertThat(stream.received()).doesNotContain("chunk-3");
			this.gates.open(id, 3);
			assertThat(stream.readToEnd(CHUNK_TIMEOUT)).contains("chunk-3");
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(used("settle-stream-tokens", id)).isEqualTo(30));
	}

	private long used(String rule, String id) {
		return this.usage.of(rule, id).map(QuotaUsage::used).orElseThrow();
	}

}
