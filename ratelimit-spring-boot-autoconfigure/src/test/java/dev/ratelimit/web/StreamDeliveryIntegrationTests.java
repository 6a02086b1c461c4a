package dev.ratelimit.web;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.RawStream;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.SpringProperties;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The limiter never holds back a streamed body: through the filter (a settled rule on every stream), each chunk reaches
 * the client, read from a plain socket, before the server produces the next one (the server waits at a gate that the
 * test opens only once it has seen the chunk). For {@code StreamingResponseBody} that takes Spring Framework's
 * {@code spring.http.response.flush.enabled} flag: without it, Spring Framework 7 hands the body a stream whose
 * {@code flush()} does nothing, and nothing arrives before the end, limiter or not (docs/quotas.md).
 */
@RedisStandaloneTest
@SpringBootTest(classes = SettleTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-settle-test")
class StreamDeliveryIntegrationTests {

	/** The Spring property (system property or {@code spring.properties}) that makes servlet bodies flushable. */
	static final String FLUSH_ENABLED = "spring.http.response.flush.enabled";

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

	@AfterEach
	void restoreFlushing() {
		SpringProperties.setProperty(FLUSH_ENABLED, null);
	}

	@Test
	void streamingResponseBodyDeliversEachChunkAsItIsFlushed() throws Exception {
		SpringProperties.setFlag(FLUSH_ENABLED);
		assertDeliveredChunkByChunk("/settle/gated/srb");
	}

	@Test
	void sseEmitterDeliversEachEventAsItIsSent() throws Exception {
		assertDeliveredChunkByChunk("/settle/gated/sse");
	}

	@Test
	void responseBodyEmitterDeliversEachChunkAsItIsSent() throws Exception {
		assertDeliveredChunkByChunk("/settle/gated/emitter");
	}

	/**
	 * The cause of what issue 30 reports: without the flag, a {@code StreamingResponseBody} that flushes each chunk
	 * still reaches the client only when it ends. Its first chunk has not arrived while the server waits at its gate
	 * (a bounded wait, since what is checked is an absence); it arrives with the others once the gates open.
	 */
	@Test
	void withoutTheFlushFlagAStreamingResponseBodyArrivesOnlyWhenItEnds() throws Exception {
		String id = UUID.randomUUID().toString();
		try (RawStream stream = RawStream.get(this.port, "/settle/gated/srb?id=" + id, Map.of())) {
			assertThat(stream.awaitText("chunk-1", Duration.ofSeconds(1))).as("chunk 1 before the end").isFalse();
			this.gates.open(id, 2);
			this.gates.open(id, 3);
			assertThat(stream.readToEnd(CHUNK_TIMEOUT)).contains("chunk-1", "chunk-2", "chunk-3");
		}
		awaitUsed(id, 30);
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
		awaitUsed(id, 30);
	}

	/** The stream settled 10 units per chunk: 30 once it has ended (its estimate was 1). */
	private void awaitUsed(String id, long expected) {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
				this.usage.of("settle-stream-tokens", id).map(QuotaUsage::used).orElseThrow()).isEqualTo(expected));
	}

}
