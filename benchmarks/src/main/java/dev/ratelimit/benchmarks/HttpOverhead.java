package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.test.redis.RedisServerProcess;
import org.HdrHistogram.Histogram;

/**
 * What the limiter adds to an HTTP request: the sample app's {@code GET /api/hello} served by two instances of the
 * sample jar on one Redis, one with {@code ratelimit.enabled=true} (rule {@code hello}, GCRA, raised to 1,000,000 per
 * second so that nothing is denied) and one with {@code ratelimit.enabled=false}. A closed-loop Java client with
 * {@value #THREADS} thread (latency unsaturated by load: on a 2-core machine more threads only measure CPU queueing) alternates between them in rounds, so both see the same machine state; latencies are
 * client-side, in a {@link Histogram} per instance.
 * <p>
 * Writes {@code docs/benchmarks-http.md}. Run by {@code benchmarks/run.sh http} (and {@code all}).
 */
public final class HttpOverhead {

	private static final int THREADS = 1;

	private static final Duration WARMUP = Duration.ofSeconds(10);

	private static final Duration ROUND = Duration.ofSeconds(4);

	private static final int ROUNDS = 4;

	private HttpOverhead() {
	}

	public static void main(String[] args) throws Exception {
		Path jar = Path.of("sample-app/target/sample-app-0.1.0-SNAPSHOT.jar");
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		if (!Files.exists(jar)) {
			throw new IllegalStateException("Build the sample first: ./mvnw -pl sample-app -am package -DskipTests");
		}
		HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
		try (RedisServerProcess redis = RedisServerProcess.start();
				Instance limited = Instance.start(jar, redis.port(), true);
				Instance unlimited = Instance.start(jar, redis.port(), false)) {
			limited.awaitReady(client);
			unlimited.awaitReady(client);
			run(client, limited, WARMUP, null);
			run(client, unlimited, WARMUP, null);
			Histogram with = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
			Histogram without = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
			long withNanos = 0;
			long withoutNanos = 0;
			for (int round = 0; round < ROUNDS; round++) {
				boolean limitedFirst = round % 2 == 0;
				for (Instance instance : limitedFirst ? List.of(limited, unlimited) : List.of(unlimited, limited)) {
					long started = System.nanoTime();
					run(client, instance, ROUND, (instance == limited) ? with : without);
					if (instance == limited) {
						withNanos += System.nanoTime() - started;
					}
					else {
						withoutNanos += System.nanoTime() - started;
					}
				}
			}
			String markdown = markdown(with, without, withNanos, withoutNanos, redis);
			System.out.print(markdown);
			Files.createDirectories(docs);
			Files.writeString(docs.resolve("benchmarks-http.md"), markdown, StandardCharsets.UTF_8);
		}
	}

	private static void run(HttpClient client, Instance instance, Duration duration, Histogram into)
			throws InterruptedException {
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong failures = new AtomicLong();
		List<Thread> threads = new ArrayList<>();
		HttpRequest request = HttpRequest.newBuilder(instance.uri("/api/hello")).build();
		for (int t = 0; t < THREADS; t++) {
			Thread thread = new Thread(() -> {
				while (running.get()) {
					long start = System.nanoTime();
					try {
						HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
						if (response.statusCode() != 200) {
							failures.incrementAndGet();
						}
					}
					catch (IOException | InterruptedException ex) {
						failures.incrementAndGet();
						return;
					}
					if (into != null) {
						synchronized (into) {
							into.recordValue(Math.max(1, (System.nanoTime() - start) / 1_000));
						}
					}
				}
			});
			thread.start();
			threads.add(thread);
		}
		Thread.sleep(duration.toMillis());
		running.set(false);
		for (Thread thread : threads) {
			thread.join();
		}
		if (failures.get() > 0) {
			throw new IllegalStateException(failures.get() + " requests to " + instance + " did not answer 200");
		}
	}

	private static String markdown(Histogram with, Histogram without, long withNanos, long withoutNanos,
			RedisServerProcess redis) {
		double p50With = with.getValueAtPercentile(50) / 1000.0;
		double p50Without = without.getValueAtPercentile(50) / 1000.0;
		double p99With = with.getValueAtPercentile(99) / 1000.0;
		double p99Without = without.getValueAtPercentile(99) / 1000.0;
		double addedP50 = p50With - p50Without;
		double addedP99 = p99With - p99Without;
		StringBuilder out = new StringBuilder();
		out.append("# HTTP overhead\n\n<!-- Generated by benchmarks/run.sh http; do not edit: run it again. -->\n\n");
		out.append("Generated on ").append(LocalDate.now()).append(" with `benchmarks/run.sh http` (")
			.append(Runtime.getRuntime().availableProcessors())
			.append(" cores, Redis ").append(redis.binary().version()).append("). The sample app's `GET /api/hello`,")
			.append(" two instances of the sample jar on one Redis: with the limiter (rule `hello`, GCRA, raised to")
			.append(" 1,000,000/s so nothing is denied: one `EVALSHA` per request, headers written) and with")
			.append(" `ratelimit.enabled=false`. ").append(THREADS).append(" client thread(s) in a closed loop (java.net.http),")
			.append(" 10 s warm-up each, then ").append(ROUNDS).append(" alternating rounds of ")
			.append(ROUND.toSeconds()).append(" s per instance. Client, both servers and Redis share the machine.")
			.append(" The sample sets `management.observations.enable.lettuce=false`: Spring Boot's per-command Lettuce")
			.append(" observation roughly tripled the limiter's cost per request in a wrk run on the same machine")
			.append(" (p50 1.56 ms with it, 0.51 ms without, 0.58 ms with the limiter off; `wrk -t2 -c4`).\n\n");
		out.append("| | requests/s | p50 ms | p99 ms |\n| --- | ---: | ---: | ---: |\n");
		out.append(row("with the limiter", with, withNanos, p50With, p99With));
		out.append(row("without (`ratelimit.enabled=false`)", without, withoutNanos, p50Without, p99Without));
		out.append(String.format(Locale.ROOT, "| **added by the limiter** | | **%+.3f** | **%+.3f** |%n%n", addedP50,
				addedP99));
		out.append(String.format(Locale.ROOT, "Targets: at most +0.2 ms p50 (%s) and +1 ms p99 (%s).%n",
				(addedP50 <= 0.2) ? "met" : "missed", (addedP99 <= 1.0) ? "met" : "missed"));
		return out.toString();
	}

	private static String row(String label, Histogram histogram, long nanos, double p50, double p99) {
		double perSecond = histogram.getTotalCount() / (nanos / 1e9);
		return String.format(Locale.ROOT, "| %s | %,.0f | %.3f | %.3f |%n", label, perSecond, p50, p99);
	}

	/** One sample app process. */
	private static final class Instance implements AutoCloseable {

		private final Process process;

		private final int port;

		private final boolean limited;

		private Instance(Process process, int port, boolean limited) {
			this.process = process;
			this.port = port;
			this.limited = limited;
		}

		static Instance start(Path jar, int redisPort, boolean limited) throws IOException {
			int port;
			try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
				port = socket.getLocalPort();
			}
			Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
					"-Xmx512m", "-jar", jar.toString(), "--server.port=" + port, "--sample.embedded-redis=never",
					"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
					"--ratelimit.enabled=" + limited, "--ratelimit.rules.hello.limit=1000000",
					"--ratelimit.rules.hello.period=1s", "--logging.level.root=WARN")
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.DISCARD)
				.start();
			return new Instance(process, port, limited);
		}

		URI uri(String path) {
			return URI.create("http://127.0.0.1:" + this.port + path);
		}

		void awaitReady(HttpClient client) throws InterruptedException {
			long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
			while (System.nanoTime() < deadline) {
				try {
					if (client.send(HttpRequest.newBuilder(uri("/api/hello")).build(),
							HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
						return;
					}
				}
				catch (IOException ex) {
					// not up yet
				}
				Thread.sleep(200);
			}
			throw new IllegalStateException(this + " did not start within 90 s");
		}

		@Override
		public void close() throws InterruptedException {
			this.process.destroy();
			if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
				this.process.destroyForcibly();
			}
		}

		@Override
		public String toString() {
			return "sample app on port " + this.port + (this.limited ? " (limited)" : " (not limited)");
		}

	}

}
