package dev.ratelimit.benchmarks.http;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One process of the sample jar, started on a free port against the benchmark's Redis with the rule {@code hello}
 * raised to 1,000,000 per second (nothing is denied) and Tomcat keeping connections alive without limit: starting
 * it, waiting until it answers, its CPU time, stopping it.
 */
final class SampleApp implements AutoCloseable {

	private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

	private final Process process;

	private final int port;

	private final SampleSetup setup;

	private SampleApp(Process process, int port, SampleSetup setup) {
		this.process = process;
		this.port = port;
		this.setup = setup;
	}

	/** Starts the jar; {@link #awaitReady(String)} waits until it answers. */
	static SampleApp start(Path jar, int redisPort, SampleSetup setup) throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0)) {
			port = socket.getLocalPort();
		}
		List<String> command = new ArrayList<>(List.of(
				setup.javaHome().resolve("bin").resolve("java").toString(), "-Xmx512m", "-jar",
				jar.toString(), "--server.port=" + port, "--sample.embedded-redis=never",
				"--spring.data.redis.host=127.0.0.1", "--spring.data.redis.port=" + redisPort,
				"--ratelimit.rules.hello.limit=1000000", "--ratelimit.rules.hello.period=1s",
				"--server.tomcat.max-keep-alive-requests=-1", "--logging.level.root=WARN"));
		command.addAll(setup.options());
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
		return new SampleApp(process, port, setup);
	}

	SampleSetup setup() {
		return this.setup;
	}

	int port() {
		return this.port;
	}

	/** Waits until {@code path} answers 200. */
	void awaitReady(String path) throws InterruptedException {
		long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
		while (System.nanoTime() < deadline) {
			try (KeepAliveConnection candidate = new KeepAliveConnection(this.port, path)) {
				candidate.get();
				return;
			}
			catch (IOException ex) {
				// not up yet
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException(this.setup.label() + " did not start within " + START_TIMEOUT.toSeconds() + " s");
	}

	/**
	 * Returns whether Spring Boot recorded Lettuce command observations in this process: whether its
	 * {@code /actuator/metrics/lettuce} exists (the timer the observations feed).
	 */
	boolean hasLettuceObservations() throws IOException, InterruptedException {
		HttpClient client = HttpClient.newHttpClient();
		HttpRequest request = HttpRequest
			.newBuilder(URI.create("http://127.0.0.1:" + this.port + "/actuator/metrics/lettuce"))
			.build();
		int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
		if (status != 200 && status != 404) {
			throw new IOException("/actuator/metrics/lettuce answered " + status);
		}
		return status == 200;
	}

	/** Returns the CPU time of the process so far (Linux), or -1 where {@code /proc} cannot tell. */
	long cpuMicros() {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(this.process.pid()), "stat"));
			// fields after the command name, which is in parentheses and may contain spaces
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
			return ticks * 10_000; // USER_HZ is 100 on Linux
		}
		catch (IOException | RuntimeException ex) {
			return -1;
		}
	}

	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
	}

}
