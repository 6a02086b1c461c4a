package dev.ratelimit.resilience;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.awaitility.Awaitility.await;

/**
 * HTTP load for outage tests: threads send requests round-robin over some paths until stopped, and every response is
 * recorded with its start time and latency.
 */
final class OutageLoad implements AutoCloseable {

	record Sample(String path, long startNanos, long latencyNanos, int status, boolean retryAfter) {
	}

	private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());

	private final ExecutorService threads;

	private final List<Future<?>> workers = new ArrayList<>();

	private volatile boolean running = true;

	OutageLoad(int port, List<String> paths, int threadCount) {
		this.threads = Executors.newFixedThreadPool(threadCount);
		HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
		for (int t = 0; t < threadCount; t++) {
			int offset = t;
			this.workers.add(this.threads.submit(() -> {
				int i = offset;
				while (this.running) {
					String path = paths.get(i++ % paths.size());
					HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
						.timeout(Duration.ofSeconds(10))
						.build();
					long start = System.nanoTime();
					HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
					this.samples.add(new Sample(path, start, System.nanoTime() - start, response.statusCode(),
							response.headers().firstValue("Retry-After").isPresent()));
				}
				return null;
			}));
		}
	}

	List<Sample> samples() {
		synchronized (this.samples) {
			return List.copyOf(this.samples);
		}
	}

	List<Sample> samples(LongPredicate startedWhen) {
		return samples().stream().filter((sample) -> startedWhen.test(sample.startNanos())).toList();
	}

	/** Waits until the load has made progress: {@code count} requests started after {@code sinceNanos} completed. */
	void awaitRequests(int count, long sinceNanos) {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
			.until(() -> samples((start) -> start > sinceNanos).size() >= count);
	}

	/** Returns the port of an application's web server. */
	static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	static long p99Millis(List<Sample> samples) {
		long[] latencies = samples.stream().mapToLong(Sample::latencyNanos).sorted().toArray();
		if (latencies.length == 0) {
			return 0;
		}
		return TimeUnit.NANOSECONDS.toMillis(latencies[(int) Math.ceil(latencies.length * 0.99) - 1]);
	}

	@Override
	public void close() throws Exception {
		this.running = false;
		for (Future<?> worker : this.workers) {
			worker.get(30, TimeUnit.SECONDS);
		}
		this.threads.shutdownNow();
	}

}
