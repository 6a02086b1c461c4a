package dev.ratelimit.benchmarks.http;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.test.redis.RedisServerProcess;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * A Spring Cloud Gateway route with the starter's {@code RateLimit} filter against the same route with the gateway's
 * own {@code RequestRateLimiter} and {@code RedisRateLimiter}, on the same Redis, in one process of the
 * {@code sample-reactive} jar: three routes forwarding to its {@code /api/hello} (ours, the gateway's, none), limits
 * raised so that nothing is denied (ours: one GCRA rule at 1,000,000/s per client IP; the gateway's: a token bucket
 * of replenishRate and burstCapacity 1,000,000 per client IP), {@code threads} keep-alive connections in closed loops.
 * Rounds rotate between the routes after a warm-up of each; prints throughput and latency per route.
 */
public final class GatewayBenchmark {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

	private GatewayBenchmark() {
	}

	public static void main(String[] args) throws Exception {
		Results results = run(Path.of("sample-reactive/target/sample-reactive-0.1.0-SNAPSHOT.jar"), Settings.fromSystem());
		System.out.printf(Locale.ROOT, "%d connections, %d rounds of %d s per route after %d s of warm-up%n",
				results.settings().threads(), results.settings().rounds(), results.settings().round().toSeconds(),
				results.settings().warmup().toSeconds());
		System.out.println("| route | requests/s | p50 ms | p99 ms | p99.9 ms | no answer in 10 s |");
		System.out.println("| --- | ---: | ---: | ---: | ---: | ---: |");
		for (Route route : results.routes()) {
			System.out.printf(Locale.ROOT, "| %s | %,.0f | %.3f | %.3f | %.3f | %d |%n", route.path(),
					route.throughput(), route.percentileMillis(50), route.percentileMillis(99),
					route.percentileMillis(99.9), route.timeouts());
		}
	}

	/**
	 * Starts the jar on a redis-server of its own and measures its three routes: ours, the gateway's, none.
	 * @param jar the {@code sample-reactive} jar
	 * @param settings connections, warm-up and rounds
	 * @return one result per route, in the order ours, the gateway's, none
	 * @throws Exception when the jar does not start or a measurement fails
	 */
	public static Results run(Path jar, Settings settings) throws Exception {
		List<String> paths = List.of("/gateway/ours", "/gateway/theirs", "/gateway/none");
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			int port = free();
			Process process = start(jar, redis.port(), port);
			try {
				awaitReady(process, port);
				List<Histogram> totals = new ArrayList<>();
				List<List<Double>> perRound = new ArrayList<>();
				long[] requests = new long[paths.size()];
				long[] nanos = new long[paths.size()];
				long[] timeouts = new long[paths.size()];
				for (String path : paths) {
					totals.add(new Histogram(3));
					perRound.add(new ArrayList<>());
					measure(port, path, settings.threads(), settings.warmup());
				}
				for (int r = 0; r < settings.rounds(); r++) {
					for (int i = 0; i < paths.size(); i++) {
						int index = (i + r) % paths.size();
						Result result = measure(port, paths.get(index), settings.threads(), settings.round());
						totals.get(index).add(result.latencies());
						requests[index] += result.requests();
						nanos[index] += result.nanos();
						timeouts[index] += result.timeouts();
						perRound.get(index).add(result.requests() * 1e9 / result.nanos());
					}
				}
				List<Route> routes = new ArrayList<>();
				for (int i = 0; i < paths.size(); i++) {
					routes.add(new Route(paths.get(i), requests[i] * 1e9 / nanos[i], List.copyOf(perRound.get(i)),
							totals.get(i), timeouts[i]));
				}
				return new Results(settings, routes);
			}
			finally {
				process.destroy();
				process.waitFor();
			}
		}
	}

	private static int free() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static Process start(Path jar, int redisPort, int port) throws IOException {
		String routes = "--spring.cloud.gateway.server.webflux.routes";
		List<String> command = new ArrayList<>(List.of(
				Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-jar",
				jar.toString(), "--server.port=" + port, "--sample.embedded-redis=never",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--logging.level.root=WARN",
				"--ratelimit.rules.bench.match.enabled=false", "--ratelimit.rules.bench.limit=1000000",
				"--ratelimit.rules.bench.period=1s",
				routes + "[0].id=ours", routes + "[0].uri=forward:///api/hello",
				routes + "[0].predicates[0]=Path=/gateway/ours", routes + "[0].filters[0]=RateLimit=bench",
				routes + "[1].id=theirs", routes + "[1].uri=forward:///api/hello",
				routes + "[1].predicates[0]=Path=/gateway/theirs",
				routes + "[1].filters[0].name=RequestRateLimiter",
				routes + "[1].filters[0].args.rate-limiter=#{@redisRateLimiter}",
				routes + "[1].filters[0].args.key-resolver=#{@clientAddress}",
				routes + "[1].filters[0].args.redis-rate-limiter.replenishRate=1000000",
				routes + "[1].filters[0].args.redis-rate-limiter.burstCapacity=1000000",
				routes + "[2].id=none", routes + "[2].uri=forward:///api/hello",
				routes + "[2].predicates[0]=Path=/gateway/none"));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		return process;
	}

	/** Waits until both limited routes answer 200. */
	private static void awaitReady(Process process, int port) throws InterruptedException {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline && process.isAlive()) {
			try (KeepAliveConnection candidate = new KeepAliveConnection(port, "/gateway/ours")) {
				candidate.get();
				try (KeepAliveConnection theirs = new KeepAliveConnection(port, "/gateway/theirs")) {
					theirs.get();
				}
				return;
			}
			catch (IOException ex) {
				// not up yet
			}
			Thread.sleep(500);
		}
		throw new IllegalStateException("sample-reactive did not start within " + START_TIMEOUT.toSeconds() + " s");
	}

	private static Result measure(int port, String path, int threads, Duration duration) throws Exception {
		Recorder recorder = new Recorder(3);
		AtomicLong requests = new AtomicLong();
		long end = System.nanoTime() + duration.toNanos();
		List<Thread> workers = new ArrayList<>();
		AtomicLong timeouts = new AtomicLong();
		long started = System.nanoTime();
		for (int t = 0; t < threads; t++) {
			Thread worker = new Thread(() -> {
				KeepAliveConnection connection = null;
				long now;
				while ((now = System.nanoTime()) < end) {
					try {
						if (connection == null) {
							connection = new KeepAliveConnection(port, path);
						}
						connection.get();
						recorder.recordValue(Math.max(1, (System.nanoTime() - now) / 1_000));
						requests.incrementAndGet();
					}
					catch (IOException ex) {
						// no answer within the connection's 10 s read timeout (or a failed request): counted, and the
						// loop goes on over a new connection
						timeouts.incrementAndGet();
						close(connection);
						connection = null;
					}
				}
				close(connection);
			});
			worker.start();
			workers.add(worker);
		}
		for (Thread worker : workers) {
			worker.join();
		}
		return new Result(recorder.getIntervalHistogram(), requests.get(), System.nanoTime() - started, timeouts.get());
	}

	private static void close(@Nullable KeepAliveConnection connection) {
		if (connection != null) {
			connection.close();
		}
	}

	private record Result(Histogram latencies, long requests, long nanos, long timeouts) {
	}

	/**
	 * How the routes are measured.
	 * @param threads keep-alive connections in closed loops
	 * @param warmup the warm-up of each route
	 * @param round the length of one measured round of one route
	 * @param rounds the rounds per route, in rotating order
	 */
	public record Settings(int threads, Duration warmup, Duration round, int rounds) {

		/** Reads {@code bench.threads} (8), {@code bench.warmup} (10 s), {@code bench.round} (5 s), {@code bench.rounds} (3). */
		public static Settings fromSystem() {
			return new Settings(Integer.getInteger("bench.threads", 8),
					Duration.ofSeconds(Long.getLong("bench.warmup", 10)),
					Duration.ofSeconds(Long.getLong("bench.round", 5)), Integer.getInteger("bench.rounds", 3));
		}

	}

	/**
	 * What one run measured.
	 * @param settings how
	 * @param routes ours, the gateway's and the route without a limiter, in that order
	 */
	public record Results(Settings settings, List<Route> routes) {

		/** Returns the lowest and highest ratio of one round's throughputs of two routes (round k against round k). */
		public double[] roundRatios(int route, int other) {
			List<Double> a = this.routes.get(route).rounds();
			List<Double> b = this.routes.get(other).rounds();
			double low = Double.MAX_VALUE;
			double high = 0;
			for (int k = 0; k < Math.min(a.size(), b.size()); k++) {
				double ratio = a.get(k) / b.get(k);
				low = Math.min(low, ratio);
				high = Math.max(high, ratio);
			}
			return new double[] { low, high };
		}

	}

	/**
	 * One route's result.
	 * @param path the route's path
	 * @param throughput requests per second over every round
	 * @param rounds requests per second of each round
	 * @param latencies latencies in microseconds, over every round
	 * @param timeouts requests without an answer in 10 s (or failed)
	 */
	public record Route(String path, double throughput, List<Double> rounds, Histogram latencies, long timeouts) {

		/** Returns a latency percentile in milliseconds. */
		public double percentileMillis(double percentile) {
			return this.latencies.getValueAtPercentile(percentile) / 1000.0;
		}

	}

}
