package dev.ratelimit.sample;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample on virtual threads ({@code spring.threads.virtual.enabled=true}) on a Java 21+ JDK, in a JVM of its own
 * (the build runs on Java 17), recorded by JFR under load: requests allowed, waiting for their slot, and denied by a
 * rule decided in Redis. After a warm-up under the same load (the first use of a class or call site pins while the
 * JDK loads, initialises or links it, once, whatever the code), a recording started with {@code jcmd JFR.start} may
 * hold no {@code jdk.VirtualThreadPinned} event (threshold 0 ms: every pinning park), and virtual threads must have
 * run the requests ({@code jdk.VirtualThreadStart}). Where no JDK 21+ is
 * found (the {@code JAVA21_HOME} environment variable, else the newest under /usr/lib/jvm), the test is skipped and
 * says so.
 */
class VirtualThreadPinningIntegrationTests {

	private static final Duration LOAD = Duration.ofSeconds(3);

	@Test
	void noDecisionPinsACarrierThread() throws Exception {
		Path jdk = jdk21OrLater().orElse(null);
		Assumptions.assumeTrue(jdk != null,
				"No Java 21+ JDK: set JAVA21_HOME or install one under /usr/lib/jvm to run the virtual thread test");
		Path settings = Files.createTempFile(Path.of("target"), "pinning", ".jfc");
		Files.writeString(settings, """
				<?xml version="1.0" encoding="UTF-8"?>
				<configuration version="2.0">
				  <event name="jdk.VirtualThreadPinned">
				    <setting name="enabled">true</setting>
				    <setting name="stackTrace">true</setting>
				    <setting name="threshold">0 ms</setting>
				  </event>
				  <event name="jdk.VirtualThreadStart">
				    <setting name="enabled">true</setting>
				  </event>
				</configuration>
				""");
		Path recording = Files.createTempFile(Path.of("target"), "pinning", ".jfr");
		Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
		try (SampleProcess sample = SampleProcess.start(jdk, List.of(),
				List.of("--spring.threads.virtual.enabled=true", "--ratelimit.rules.vt.match.paths[0]=/",
						"--ratelimit.rules.vt.key=global", "--ratelimit.rules.vt.limit=20",
						"--ratelimit.rules.vt.period=1s", "--ratelimit.rules.vt.max-wait=200ms"))) {
			assertThat(sample.output()).contains("Java 2");
			// warm: the first use of each class and call site pins while the JDK loads, initialises or links it,
			// once, whatever the code; recorded from here on is the steady state of decisions
			load(sample, new ConcurrentHashMap<>());
			tool(jdk, "jcmd", String.valueOf(sample.pid()), "JFR.start", "name=pinning",
					"settings=" + settings.toAbsolutePath());
			load(sample, statuses);
			tool(jdk, "jcmd", String.valueOf(sample.pid()), "JFR.dump", "name=pinning",
					"filename=" + recording.toAbsolutePath());
		}
		assertThat(statuses).as("statuses").containsKey(200).containsKey(429).doesNotContainKey(500);
		String summary = tool(jdk, "jfr", "summary", recording.toAbsolutePath().toString());
		String pinned = tool(jdk, "jfr", "print", "--stack-depth", "64", "--events", "jdk.VirtualThreadPinned",
				recording.toAbsolutePath().toString());
		List<String> events = List.of(pinned.split("(?=jdk\\.VirtualThreadPinned \\{)")).stream()
			.filter((event) -> event.startsWith("jdk.VirtualThreadPinned {"))
			.toList();
		// the recording's own jdk.VirtualThreadStart event may pin while JFR commits it (a contended monitor in
		// jdk.internal.event): the recording, not the code under test
		List<String> pinnedByTheCode = events.stream().filter((event) -> !byTheRecording(event)).toList();
		System.out.printf("under load after warm-up: %d virtual threads started, %d pinned (%d by the recording"
				+ " itself), statuses %s%n", count(summary, "jdk.VirtualThreadStart"), events.size(),
				events.size() - pinnedByTheCode.size(), statuses);
		assertThat(count(summary, "jdk.VirtualThreadStart")).as("virtual threads started: %s", summary).isPositive();
		assertThat(count(summary, "jdk.VirtualThreadPinned")).as("pinned events printed").isEqualTo(events.size());
		assertThat(pinnedByTheCode).as("pinned virtual threads").isEmpty();
	}

	/** Returns whether a pinned event's innermost frame is JFR committing an event of the recording. */
	private static boolean byTheRecording(String event) {
		int stack = event.indexOf("stackTrace = [");
		if (stack < 0) {
			return false;
		}
		String frames = event.substring(stack + "stackTrace = [".length()).stripLeading();
		return frames.startsWith("jdk.internal.event.");
	}

	/** 16 clients for a few seconds: a global rule of 20 per second with max-wait 200 ms admits, delays and denies. */
	private static void load(SampleProcess sample, Map<Integer, LongAdder> statuses) throws Exception {
		ExecutorService clients = Executors.newFixedThreadPool(16);
		try {
			long end = System.nanoTime() + LOAD.toNanos();
			List<Future<?>> running = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				running.add(clients.submit(() -> {
					while (System.nanoTime() < end) {
						HttpResponse<String> response = sample.get("/");
						statuses.computeIfAbsent(response.statusCode(), (status) -> new LongAdder()).increment();
					}
					return null;
				}));
			}
			for (Future<?> client : running) {
				client.get(1, TimeUnit.MINUTES);
			}
		}
		finally {
			clients.shutdownNow();
		}
	}

	private static long count(String summary, String event) {
		Matcher matcher = Pattern.compile("(?m)^\\s*" + Pattern.quote(event) + "\\s+(\\d+)").matcher(summary);
		return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
	}

	/** Runs a tool of the JDK (jcmd, jfr) and returns what it printed. */
	private static String tool(Path jdk, String tool, String... arguments) throws IOException, InterruptedException {
		List<String> line = new ArrayList<>();
		line.add(jdk.resolve("bin").resolve(tool).toString());
		line.addAll(List.of(arguments));
		Process process = new ProcessBuilder(line).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(1, TimeUnit.MINUTES)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		return output;
	}

	/** The JDK of {@code JAVA21_HOME}, else the newest JDK 21+ under /usr/lib/jvm. */
	static Optional<Path> jdk21OrLater() throws IOException {
		String configured = System.getenv("JAVA21_HOME");
		if (configured != null && !configured.isBlank()) {
			return Optional.of(Path.of(configured)).filter((home) -> feature(home) >= 21);
		}
		Path jvms = Path.of("/usr/lib/jvm");
		if (!Files.isDirectory(jvms)) {
			return Optional.empty();
		}
		try (Stream<Path> homes = Files.list(jvms)) {
			return homes.filter((home) -> feature(home) >= 21 && Files.isExecutable(home.resolve("bin/jfr")))
				.max(Comparator.comparingInt(VirtualThreadPinningIntegrationTests::feature));
		}
	}

	/** The feature version in a JDK's {@code release} file (JAVA_VERSION="25.0.3"), or 0. */
	private static int feature(Path home) {
		try {
			Matcher matcher = Pattern.compile("JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
			return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

}
