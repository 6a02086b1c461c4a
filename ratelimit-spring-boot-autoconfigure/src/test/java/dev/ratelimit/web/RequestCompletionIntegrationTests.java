package dev.ratelimit.web;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The callbacks registered for an admitted request run exactly once, whichever way the request ends: over HTTP,
 * against the real filter chain, synchronous and asynchronous endpoints, failures and a client that hangs up.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class RequestCompletionIntegrationTests {

	@LocalServerPort
	private int port;

	@Autowired
	private CompletionEndpoints.Ends ends;

	@Autowired
	private CompletionEndpoints.Held held;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	/** Whatever way the request ended, its concurrency lease is released (read in Redis, never an expiry). */
	@AfterEach
	void leasesAreReleased() {
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(leases("completion-leases")).as("leases still held").isZero());
		assertThat(leases("deferred-one-at-a-time")).isZero();
	}

	@Test
	void aConcurrencyCapAdmitsOneDeferredRequestAtATimeAndFreesItsPlaceWhenItEnds() throws Exception {
		CompletableFuture<HttpResponse<String>> first = send("/completion/deferred", UUID.randomUUID().toString());
		DeferredResult<String> held = await().atMost(Duration.ofSeconds(10)).until(this.held.results::poll,
				Objects::nonNull);
		HttpResponse<String> second = new TestHttp(this.port).get("/completion/deferred",
				Map.of("X-Completion-Id", UUID.randomUUID().toString()));
		assertThat(second.statusCode()).as("the place is taken; a global cap answers 503").isEqualTo(503);
		assertThat(leases("deferred-one-at-a-time")).isEqualTo(1);
		held.setResult("deferred");
		assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(10)).until(() -> leases("deferred-one-at-a-time") == 0);
		CompletableFuture<HttpResponse<String>> third = send("/completion/deferred", UUID.randomUUID().toString());
		await().atMost(Duration.ofSeconds(10)).until(this.held.results::poll, Objects::nonNull).setResult("again");
		assertThat(third.get(10, TimeUnit.SECONDS).statusCode()).as("the place was freed").isEqualTo(200);
	}

	private long leases(String rule) {
		try (var connection = this.connectionFactory.getConnection()) {
			Long count = connection.zSetCommands()
				.zCard(("rl-http:{" + rule + ":global}").getBytes(StandardCharsets.UTF_8));
			return (count != null) ? count : 0;
		}
	}

	@Test
	void synchronousSuccessEndsOnceAsCompleted() {
		assertEndsOnce("/completion/ok", 200, Outcome.COMPLETED);
	}

	@Test
	void controllerExceptionEndsOnceAsFailed() {
		assertEndsOnce("/completion/fail", 500, Outcome.FAILED);
	}

	@Test
	void callableEndsOnceWhenItsResultIsWritten() {
		assertEndsOnce("/completion/callable", 200, Outcome.COMPLETED);
	}

	@Test
	void completableFutureEndsOnceWhenItCompletes() {
		assertEndsOnce("/completion/future", 200, Outcome.COMPLETED);
	}

	@Test
	void deferredResultCompletedOnAnotherThreadEndsOnceWhenItIsCompleted() throws Exception {
		String id = UUID.randomUUID().toString();
		CompletableFuture<HttpResponse<String>> response = send("/completion/deferred", id);
		DeferredResult<String> result = await().atMost(Duration.ofSeconds(10)).until(this.held.results::poll,
				Objects::nonNull);
		assertStillInProgress(id);
		result.setResult("deferred");
		assertThat(response.get(10, TimeUnit.SECONDS).body()).isEqualTo("deferred");
		awaitEnd(id);
		assertRanOnce(id, Outcome.COMPLETED);
	}

	@Test
	void deferredResultThatTimesOutEndsOnceAsTimedOut() {
		assertEndsOnce("/completion/deferred-timeout", 503, Outcome.TIMED_OUT);
	}

	@Test
	void sseEmitterEndsOnceWhenItCompletes() throws Exception {
		String id = UUID.randomUUID().toString();
		CompletableFuture<HttpResponse<String>> response = send("/completion/sse", id);
		SseEmitter emitter = await().atMost(Duration.ofSeconds(10)).until(this.held.emitters::poll, Objects::nonNull);
		emitter.send("one");
		assertStillInProgress(id);
		emitter.send("two");
		emitter.complete();
		assertThat(response.get(10, TimeUnit.SECONDS).body()).contains("data:one").contains("data:two");
		awaitEnd(id);
		assertRanOnce(id, Outcome.COMPLETED);
	}

	@Test
	void clientThatClosesTheConnectionMidResponseEndsOnceAsAborted() throws Exception {
		String id = UUID.randomUUID().toString();
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			OutputStream out = socket.getOutputStream();
			out.write(("GET /completion/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Completion-Id: " + id
					+ "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] buffer = new byte[16384];
			int read = 0;
			while (read < buffer.length) {
				int n = in.read(buffer, read, buffer.length - read);
				assertThat(n).as("the response started").isPositive();
				read += n;
			}
			assertThat(new String(buffer, 0, 12, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
			// hang up mid-response with a reset, so that the server's next writes fail
			socket.setSoLinger(true, 0);
		}
		awaitEnd(id);
		assertRanOnce(id, Outcome.ABORTED);
	}

	/** Sends a request without waiting for its response. */
	private CompletableFuture<HttpResponse<String>> send(String path, String id) {
		return new TestHttp(this.port).getAsync(path, Map.of("X-Completion-Id", id));
	}

	private void assertStillInProgress(String id) {
		// the handler has returned and the filter chain with it: the request has not ended for all that
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.ends.of(id)).isEmpty());
	}

	private void awaitEnd(String id) {
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(this.ends.of(id)).isNotEmpty());
	}

	private HttpResponse<String> assertEndsOnce(String path, int status, Outcome outcome) {
		String id = UUID.randomUUID().toString();
		HttpResponse<String> response = new TestHttp(this.port).get(path, Map.of("X-Completion-Id", id));
		assertThat(response.statusCode()).isEqualTo(status);
		// an asynchronous request ends when the container completes it, which may be just after the client has read it
		awaitEnd(id);
		assertRanOnce(id, outcome);
		return response;
	}

	private void assertRanOnce(String id, Outcome outcome) {
		assertThat(this.ends.of(id)).containsExactly(outcome);
		// and never again: nothing else ends it later
		await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(this.ends.of(id)).isEqualTo(List.of(outcome)));
	}

}
