package dev.ratelimit.sample;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample started as a process of its own (a JVM of the tests' choice, this module's classes and dependencies,
 * an embedded Redis), for the tests that need what a test's application context cannot give: AOT mode, another JDK.
 */
final class SampleProcess implements AutoCloseable {

	private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private final Process process;

	private final Path log;

	private final int port;

	private SampleProcess(Process process, Path log, int port) {
		this.process = process;
		this.log = log;
		this.port = port;
	}

	/**
	 * Starts the sample and waits until it answers its health endpoint.
	 * @param javaHome the JDK to run it with
	 * @param jvmOptions options of the JVM, e.g. {@code -Dspring.aot.enabled=true}
	 * @param arguments arguments of the application, e.g. {@code --ratelimit.rules.x.limit=5}
	 * @return the running sample
	 */
	static SampleProcess start(Path javaHome, List<String> jvmOptions, List<String> arguments) throws IOException {
		int port = freePort();
		Path log = Files.createTempFile(Path.of("target"), "sample-process", ".log");
		List<String> command = new ArrayList<>();
		command.add(javaHome.resolve("bin").resolve("java").toString());
		command.addAll(jvmOptions);
		command.addAll(List.of("-cp", applicationClassPath(), SampleApplication.class.getName(),
				"--server.port=" + port, "--sample.embedded-redis=always", "--ratelimit.redis.timeout=5s"));
		command.addAll(arguments);
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		SampleProcess sample = new SampleProcess(process, log, port);
		await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
			assertThat(process.isAlive()).as("the sample exited: %s", sample.output()).isTrue();
			return sample.answers();
		});
		return sample;
	}

	/** Sends a GET. */
	HttpResponse<String> get(String path) throws IOException, InterruptedException {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	/** Returns the process id. */
	long pid() {
		return this.process.pid();
	}

	/** Returns what the sample printed so far. */
	String output() throws IOException {
		return Files.readString(this.log, StandardCharsets.UTF_8);
	}

	/** Stops the sample with SIGTERM (it stops its embedded Redis), waiting. */
	@Override
	public void close() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(60, TimeUnit.SECONDS)) {
			this.process.destroyForcibly();
		}
	}

	private boolean answers() {
		try {
			return get("/actuator/health").statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/** This test's class path without its test classes: the application's classes (with the AOT ones) and jars. */
	private static String applicationClassPath() {
		return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
