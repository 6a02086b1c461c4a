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
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as {@code spring-boot:process-aot} left it in this build (the {@code process-aot} execution of this
 * module, at prepare-package), started as a process of its own with {@code -Dspring.aot.enabled=true} and an embedded
 * Redis: it logs that it runs AOT-processed, and answers {@code /api/hello} (GCRA 5 per 10 s) 200 then 429, with the
 * rate limit headers. Run by failsafe after packaging, not by surefire.
 */
class SampleAotIntegrationTests {

	private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

	private Process application;

	private Path log;

	@AfterEach
	void stop() throws InterruptedException {
		if (this.application != null) {
			// SIGTERM: the application stops its embedded Redis as it shuts down
			this.application.destroy();
			if (!this.application.waitFor(30, TimeUnit.SECONDS)) {
				this.application.destroyForcibly();
			}
		}
	}

	@Test
	void theAotProcessedSampleAnswersLimitedRequests() throws Exception {
		assertThat(Path.of("target/spring-aot/main/sources")).as("spring-boot:process-aot has run").isDirectory();
		int port = freePort();
		this.log = Files.createTempFile(Path.of("target"), "aot-sample", ".log");
		this.application = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
				"-Dspring.aot.enabled=true", "-cp", applicationClassPath(), SampleApplication.class.getName(),
				"--server.port=" + port, "--sample.embedded-redis=always", "--ratelimit.redis.timeout=5s")
			.redirectErrorStream(true)
			.redirectOutput(this.log.toFile())
			.start();
		await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(500)).until(() -> {
			assertThat(this.application.isAlive()).as("the sample exited: %s", output()).isTrue();
			return answers(port);
		});
		assertThat(output()).contains("Starting AOT-processed SampleApplication");
		// GCRA 5 per 10 s: a burst of 5, then one every 2 s
		long start = System.nanoTime();
		int admitted = 0;
		HttpResponse<String> denied = null;
		while (denied == null && admitted < 20) {
			HttpResponse<String> response = get(port, "/api/hello");
			assertThat(response.headers().firstValue("RateLimit")).as("RateLimit header").isPresent();
			assertThat(response.headers().firstValue("RateLimit-Policy")).as("RateLimit-Policy header").isPresent();
			if (response.statusCode() == 429) {
				denied = response;
			}
			else {
				assertThat(response.statusCode()).isEqualTo(200);
				admitted++;
			}
		}
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied).as("a 429 after %d admitted in %.1f s", admitted, elapsed).isNotNull();
		assertThat(admitted).as("admitted in %.1f s", elapsed).isBetween(5, 5 + (int) (elapsed / 2));
		assertThat(denied.headers().firstValue("Retry-After")).isPresent();
	}

	private boolean answers(int port) {
		try {
			return get(port, "/actuator/health").statusCode() == 200;
		}
		catch (IOException ex) {
			return false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	private String output() throws IOException {
		return Files.readString(this.log, StandardCharsets.UTF_8);
	}

	/** This test's class path without its test classes: the application's classes (with the AOT ones) and jars. */
	private static String applicationClassPath() {
		List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.toList();
		return entries.stream().collect(Collectors.joining(File.pathSeparator));
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

	private static HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

}
