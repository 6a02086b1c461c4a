package dev.ratelimit.web;

import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.SpringProperties;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 1,000 concurrent streamed requests on the servlet stack, half {@code StreamingResponseBody} (flushed per token, as
 * docs/quotas.md says to set up) and half {@code SseEmitter}, with random token counts and a tenth of the clients
 * hanging up mid-stream: each request is charged in Redis exactly what the server produced for it, and the total is
 * the sum (see {@link ConcurrentStreams}).
 */
@RedisStandaloneTest
@SpringBootTest(classes = SettleTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-settle-test")
class SettleStreamsIntegrationTests {

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

	@BeforeEach
	void flushStreamingResponseBodies() {
		SpringProperties.setFlag(StreamDeliveryIntegrationTests.FLUSH_ENABLED);
	}

	@AfterEach
	void restoreFlushing() {
		SpringProperties.setProperty(StreamDeliveryIntegrationTests.FLUSH_ENABLED, null);
	}

	@Test
	void aThousandConcurrentStreamsAreEachChargedExactlyWhatTheServerProduced() throws Exception {
		long seed = System.nanoTime();
		long total = new ConcurrentStreams(this.port, this.gates, this.usage).run(Integer.getInteger("settle.streams", 1000), seed,
				(i) -> (i % 2 == 0) ? "/settle/stream/srb" : "/settle/stream/sse");
		assertThat(total).as("seed " + seed).isPositive();
	}

}
