package dev.ratelimit.web;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.RawStream;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A request reserves its estimate ({@code cost}) and settles what it really used when it ends, read in Redis: from a
 * response header, a SpEL source, or {@link RateLimitContext} from code (which wins, the last call winning), for
 * plain and streamed responses, and when the client hangs up mid-stream (what was produced is charged). A request
 * that reports nothing keeps its estimate; a rule that counts requests is never settled.
 */
@RedisStandaloneTest
@SpringBootTest(classes = SettleTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-settle-test")
class SettleIntegrationTests {

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
	void aResponseHeaderSettlesTheEstimateDown() {
		String id = get("/settle/header?units=42");
		awaitUsed("settle-header", id, 42);
		assertThat(used("settle-requests", id)).as("a rule that counts requests is not settled").isEqualTo(1);
	}

	@Test
	void aResponseHeaderAboveTheEstimateChargesTheDifference() {
		String id = get("/settle/header?units=350");
		awaitUsed("settle-header", id, 350);
	}

	@Test
	void aSpelSourceOverTheResponseSettles() {
		String id = get("/settle/expression?units=7");
		awaitUsed("settle-expression", id, 7);
	}

	@Test
	void codeSettlesARuleWithACostOfItsOwnAndTheLastCallWins() {
		String id = get("/settle/code?units=5&then=9&max=60");
		awaitUsed("settle-code", id, 9);
		assertThat(used("settle-requests", id)).isEqualTo(1);
	}

	@Test
	void codeWinsOverTheRulesSource() {
		String id = get("/settle/both?header=50&code=5");
		awaitUsed("settle-header", id, 5);
	}

	@Test
	void settlingZeroGivesTheWholeEstimateBack() {
		String id = get("/settle/code?units=0&max=60");
		awaitUsed("settle-code", id, 0);
	}

	@Test
	void aRequestThatFailsBeforeReportingKeepsItsEstimate() {
		String id = get("/settle/fail?max=77");
		awaitUsed("settle-code", id, 77);
	}

	@Test
	void aStreamingResponseBodySettlesWhatItProducedWhenItEnds() {
		String id = get("/settle/stream/srb?tokens=25&max=1000&run=" + UUID.randomUUID());
		awaitUsed("settle-stream-tokens", id, 25);
	}

	@Test
	void anSseEmitterSettlesWhatItProducedWhenItCompletes() {
		String id = get("/settle/stream/sse?tokens=25&max=1000&run=" + UUID.randomUUID());
		awaitUsed("settle-stream-tokens", id, 25);
	}

	@Test
	void aClientThatHangsUpMidStreamIsChargedWhatWasProduced() throws Exception {
		String id = UUID.randomUUID().toString();
		try (RawStream stream = RawStream.get(this.port,
				"/settle/stream/srb?tokens=10000000&max=10000000&run=" + id + "&id=" + id, Map.of())) {
			assertThat(stream.awaitText("token-000000010", Duration.ofSeconds(10))).isTrue();
			stream.hangUp();
		}
		Long produced = await().atMost(Duration.ofSeconds(20)).until(() -> this.gates.produced(id),
				(tokens) -> tokens != null);
		assertThat(produced).isBetween(10L, 10_000_000L - 1);
		awaitUsed("settle-stream-tokens", id, produced);
	}

	@Test
	void currentOutsideARequestSaysWhereToGetTheContext() {
		assertThatIllegalStateException().isThrownBy(RateLimitContext::current)
			.withMessageContaining("call RateLimitContext.current() in the handler method and keep the context");
	}

	/** Sends a GET for a new subject, and returns the subject. */
	private String get(String pathAndQuery) {
		String id = UUID.randomUUID().toString();
		String separator = pathAndQuery.contains("?") ? "&" : "?";
		int status = new TestHttp(this.port).get(pathAndQuery + separator + "id=" + id).statusCode();
		assertThat(status).as(pathAndQuery).isIn(200, 500);
		return id;
	}

	/** Waits for the settlement (it follows the response), then checks that nothing changes it again. */
	private void awaitUsed(String rule, String id, long expected) {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(used(rule, id)).isEqualTo(expected));
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(used(rule, id)).as("settled once").isEqualTo(expected));
	}

	private long used(String rule, String id) {
		return this.usage.of(rule, id).map(QuotaUsage::used).orElseThrow();
	}

}
