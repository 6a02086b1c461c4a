package dev.ratelimit.web;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.test.RawStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The "Must show" of settling streams (issue 30): many concurrent streamed requests, each asking for a random number
 * of tokens with a random estimate ({@code max}, never equal to it), a tenth of the clients hanging up mid-stream with
 * a TCP reset. Every request has its own subject under {@code settle-stream-tokens}, and the run one subject under
 * {@code settle-stream-total}. Afterwards, read in Redis: each request was charged exactly what the server produced for
 * it (the last value it settled), so none was charged twice nor left at its estimate, and the run's total is the sum.
 */
public final class ConcurrentStreams {

	/** A stream that produces until its client hangs up: far more tokens than any buffer holds. */
	static final long ENDLESS = 10_000_000;

	private final int port;

	private final StreamGates gates;

	private final RateLimitUsage usage;

	/**
	 * @param port the application's port
	 * @param gates where the application records what each stream produced
	 * @param usage reads usage in Redis
	 */
	public ConcurrentStreams(int port, StreamGates gates, RateLimitUsage usage) {
		this.port = port;
		this.gates = gates;
		this.usage = usage;
	}

	/**
	 * Runs the streams and checks what was settled.
	 * @param streams how many streamed requests at once
	 * @param seed the seed of the token counts and estimates
	 * @param path the endpoint of the {@code i}-th request (it takes {@code id}, {@code run}, {@code tokens} and
	 * {@code max})
	 * @return what the server produced in all
	 * @throws Exception when a client fails
	 */
	public long run(int streams, long seed, IntFunction<String> path) throws Exception {
		Random random = new Random(seed);
		String run = UUID.randomUUID().toString();
		Map<String, long[]> requests = new LinkedHashMap<>();
		for (int i = 0; i < streams; i++) {
			boolean hangsUp = (i % 10 == 0);
			long max = hangsUp ? ENDLESS : 1 + random.nextInt(150);
			long tokens = hangsUp ? ENDLESS : random.nextInt(300);
			if (!hangsUp && tokens == max) {
				tokens++;
			}
			requests.put(path.apply(i) + "?id=" + UUID.randomUUID() + "&run=" + run + "&tokens=" + tokens + "&max=" + max,
					new long[] { tokens, max });
		}
		ExecutorService clients = Executors.newFixedThreadPool(streams);
		Map<String, String> failures = new ConcurrentHashMap<>();
		try {
			List<Future<?>> answered = new ArrayList<>();
			requests.forEach((target, request) -> answered.add(clients.submit(() -> {
				try {
					stream(target, request[0]);
				}
				catch (Exception | AssertionError ex) {
					failures.put(target, ex.toString());
				}
			})));
			for (Future<?> client : answered) {
				client.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			clients.shutdownNow();
		}
		assertThat(failures).as("clients that failed").isEmpty();
		Map<String, Long> produced = new LinkedHashMap<>();
		await().atMost(Duration.ofSeconds(30)).until(() -> {
			requests.keySet().forEach((target) -> {
				Long tokens = this.gates.produced(id(target));
				if (tokens != null) {
					produced.put(id(target), tokens);
				}
			});
			return produced.size() == requests.size();
		});
		requests.forEach((target, request) -> {
			long tokens = produced.get(id(target));
			if (request[0] != ENDLESS) {
				assertThat(tokens).as("a stream that ran to its end produced what it was asked").isEqualTo(request[0]);
			}
			else {
				assertThat(tokens).as("a stream whose client hung up stopped early").isLessThan(ENDLESS);
			}
		});
		long total = produced.values().stream().mapToLong(Long::longValue).sum();
		long hungUp = requests.entrySet().stream().filter((request) -> request.getValue()[0] == ENDLESS)
			.mapToLong((request) -> produced.get(id(request.getKey())))
			.sum();
		System.out.println("ConcurrentStreams: " + streams + " streams (seed " + seed + "), " + total
				+ " tokens produced, of which " + hungUp + " by the streams whose client hung up");
		// the settlements follow the ends of the requests: wait for them, then check that nothing changes again
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
			.untilAsserted(() -> assertSettled(produced, run, total));
		await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertSettled(produced, run, total));
		return total;
	}

	private void assertSettled(Map<String, Long> produced, String run, long total) {
		Map<String, Long> wrong = new LinkedHashMap<>();
		produced.forEach((id, tokens) -> {
			long used = used("settle-stream-tokens", id);
			if (used != tokens) {
				wrong.put(id, used);
			}
		});
		assertThat(wrong).as("requests charged other than what the server produced for them").isEmpty();
		assertThat(used("settle-stream-total", run)).as("the run's total").isEqualTo(total);
	}

	private void stream(String target, long tokens) throws Exception {
		try (RawStream stream = RawStream.get(this.port, target, Map.of())) {
			if (tokens == ENDLESS) {
				assertThat(stream.awaitText("token-000000010", Duration.ofSeconds(50))).as(target).isTrue();
				stream.hangUp();
				return;
			}
			String response = stream.readToEnd(Duration.ofSeconds(50));
			assertThat(stream.status()).as(target).isEqualTo(200);
			assertThat(response.split("token-", -1).length - 1).as("tokens received by " + target)
				.isEqualTo(tokens);
		}
	}

	private static String id(String target) {
		int start = target.indexOf("id=") + 3;
		return target.substring(start, target.indexOf('&', start));
	}

	private long used(String rule, String subject) {
		return this.usage.of(rule, subject).map(QuotaUsage::used).orElseThrow();
	}

}
