package dev.ratelimit.web;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.test.Race;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 requests from 32 clients at once, ending in every way a request can: success, an exception, a client that
 * hangs up mid-response, asynchronous results that complete, fail or time out on other threads. Each admitted request
 * holds two leases (a cap of 24 for all and of 3 per client, 12 clients: both full at times, so that some are denied);
 * afterwards
 * no lease is left in Redis. The leases time out after an hour, so a leaked one would still be there.
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class LeaseLeakIntegrationTests {

	private static final int REQUESTS = 10_000;

	private static final int CLIENTS = 32;

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** The endpoint that streams until the client hangs up. */
	private static final String ABORT = "/leaks/stream";

	/** Each way of ending, with the statuses an admitted request of that way may get. */
	private static final List<Ending> ENDINGS = List.of(new Ending("/leaks/ok", 200), new Ending("/leaks/ok", 200),
			new Ending("/leaks/fail", 500), new Ending("/leaks/callable", 200), new Ending("/leaks/future", 200),
			new Ending("/leaks/future-fail", 500), new Ending("/leaks/deferred", 200),
			new Ending("/leaks/deferred-timeout", 503), new Ending("/leaks/sse", 200),
			new Ending("/leaks/sse-fail", 200, 500), new Ending(ABORT, 200));

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	@Test
	void noLeaseIsLeftAfterTenThousandRequestsEndingInEveryWay() throws Exception {
		ConcurrentMap<String, AtomicInteger> admitted = new ConcurrentHashMap<>();
		AtomicInteger denied = new AtomicInteger();
		AtomicInteger answered = new AtomicInteger();
		TestHttp http = new TestHttp(this.port);
		Race.run(CLIENTS, (thread) -> {
			for (int i = thread; i < REQUESTS; i += CLIENTS) {
				Ending ending = ENDINGS.get(i % ENDINGS.size());
				String client = "client-" + (i / ENDINGS.size()) % 12;
				Answer answer = ending.path().equals(ABORT) ? hangUpMidResponse(client)
						: answer(http.get(ending.path(), Map.of("X-Client", client), TIMEOUT));
				answered.incrementAndGet();
				if (answer.denied()) {
					denied.incrementAndGet();
				}
				else {
					assertThat(ending.statuses()).as(ending.path()).contains(answer.status());
					admitted.computeIfAbsent(ending.path(), (path) -> new AtomicInteger()).incrementAndGet();
				}
			}
		});
		assertThat(answered.get()).isEqualTo(REQUESTS);
		assertThat(admitted.keySet()).as("every way of ending, admitted")
			.containsExactlyInAnyOrderElementsOf(ENDINGS.stream().map(Ending::path).distinct().toList());
		assertThat(admitted.values()).allSatisfy((count) -> assertThat(count.get()).isGreaterThan(50));
		assertThat(denied.get()).as("denied while a cap was full").isPositive();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(leaseSets()).as("lease sets").isEmpty());
	}

	/** Returns the lease sets of the leak rules in Redis with the number of slots each still holds. */
	private static Map<String, Long> leaseSets() {
		Map<String, Long> held = new ConcurrentHashMap<>();
		RedisStandaloneExtension.shared().call((commands) -> {
			for (String pattern : Set.of("rl-http:{leak-global:*", "rl-http:{leak-per-client:*")) {
				for (String key : commands.keys(pattern)) {
					held.put(key, commands.zcard(key));
				}
			}
			return held;
		});
		return held;
	}

	/**
	 * Asks for an endpoint that streams until the client goes away, and when admitted, hangs up with a reset as soon
	 * as the response has begun, so that the server's next write fails.
	 */
	private Answer hangUpMidResponse(String client) throws IOException {
		try (Socket socket = new Socket("127.0.0.1", this.port)) {
			socket.setSoTimeout((int) TIMEOUT.toMillis());
			OutputStream out = socket.getOutputStream();
			out.write(("GET " + ABORT + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Client: " + client + "\r\n\r\n")
				.getBytes(StandardCharsets.US_ASCII));
			out.flush();
			InputStream in = socket.getInputStream();
			byte[] statusLine = in.readNBytes(12);
			assertThat(statusLine).as("a status line").hasSize(12);
			int status = Integer.parseInt(new String(statusLine, 9, 3, StandardCharsets.US_ASCII));
			if (status == 200) {
				socket.setSoLinger(true, 0);
				return new Answer(status, false);
			}
			return new Answer(status, true);
		}
	}

	/** A denial answers 429 or 503 with a {@code Retry-After} (an asynchronous timeout's 503 has none). */
	private static Answer answer(HttpResponse<String> response) {
		int status = response.statusCode();
		boolean denied = (status == 429 || status == 503) && response.headers().firstValue("Retry-After").isPresent();
		return new Answer(status, denied);
	}

	private record Ending(String path, Set<Integer> statuses) {

		Ending(String path, Integer... statuses) {
			this(path, Set.of(statuses));
		}

	}

	private record Answer(int status, boolean denied) {
	}

}
