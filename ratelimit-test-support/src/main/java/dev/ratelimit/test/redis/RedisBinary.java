package dev.ratelimit.test.redis;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code redis-server} executable usable by the test harness.
 *
 * <p>{@link #locate()} resolves, in order and once per JVM:
 * <ol>
 *   <li>the env variable {@value #ENV} or system property {@value #PROPERTY}: a path to an
 *       executable, or the word {@code embedded} to force {@link #embedded()};</li>
 *   <li>{@code redis-server} on the {@code PATH};</li>
 *   <li>the Redis 6.2 binary bundled in {@code com.github.codemonstur:embedded-redis}, extracted
 *       to a temporary file ({@link #embedded()}).</li>
 * </ol>
 *
 * @param executable absolute path of the executable
 * @param version    the server version, e.g. {@code 7.0.15}
 * @param source     where the executable was found
 */
public record RedisBinary(Path executable, String version, Source source) {

	/** Env variable naming the executable to use (or {@code embedded}). */
	public static final String ENV = "REDIS_SERVER_BIN";

	/** System property equivalent of {@link #ENV}; the env variable wins. */
	public static final String PROPERTY = "redis.server.bin";

	private static final Pattern VERSION = Pattern.compile("v=(\\d+\\.\\d+\\.\\d+)");

	private static RedisBinary located;

	private static RedisBinary embedded;

	/** Where a binary came from. */
	public enum Source {
		/** {@value RedisBinary#ENV} / {@value RedisBinary#PROPERTY}. */
		CONFIGURED,
		/** {@code redis-server} found on the {@code PATH}. */
		PATH,
		/** Extracted from the embedded-redis jar. */
		EMBEDDED
	}

	/**
	 * Returns the binary to use for tests (see the class documentation for the lookup order).
	 *
	 * @throws IllegalStateException if no usable binary exists
	 */
	public static synchronized RedisBinary locate() {
		if (located == null) {
			String configured = Optional.ofNullable(System.getenv(ENV)).orElse(System.getProperty(PROPERTY));
			if (configured != null && !configured.isBlank()) {
				located = "embedded".equalsIgnoreCase(configured.trim())
						? embedded()
						: of(Path.of(configured.trim()), Source.CONFIGURED);
			}
			else {
				located = onPath().orElseGet(RedisBinary::embedded);
			}
		}
		return located;
	}

	/** Returns {@code redis-server} from the {@code PATH}, if there is one. */
	public static Optional<RedisBinary> onPath() {
		String path = Optional.ofNullable(System.getenv("PATH")).orElse("");
		for (String dir : path.split(Pattern.quote(File.pathSeparator))) {
			if (!dir.isEmpty()) {
				Path candidate = Path.of(dir, "redis-server");
				if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
					return Optional.of(of(candidate, Source.PATH));
				}
			}
		}
		return Optional.empty();
	}

	/**
	 * Extracts (once per JVM) the {@code redis-server} bundled in the embedded-redis 1.4.x jar for
	 * the current OS and architecture into a temporary file and returns it.
	 *
	 * @throws IllegalStateException if the jar is not on the classpath or has no binary for this platform
	 */
	public static synchronized RedisBinary embedded() {
		if (embedded == null) {
			String resource = embeddedResourceName();
			try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
				if (in == null) {
					throw new IllegalStateException("Resource '" + resource + "' not found: is "
							+ "com.github.codemonstur:embedded-redis:1.4.x on the test classpath?");
				}
				Path file = Files.createTempFile("redis-server-embedded-", "");
				file.toFile().deleteOnExit();
				Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
				if (!file.toFile().setExecutable(true, true)) {
					throw new IllegalStateException("Cannot make " + file + " executable");
				}
				embedded = of(file, Source.EMBEDDED);
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot extract embedded redis-server", ex);
			}
		}
		return embedded;
	}

	/** Major version, e.g. {@code 7}. */
	public int majorVersion() {
		return Integer.parseInt(version.substring(0, version.indexOf('.')));
	}

	private static RedisBinary of(Path executable, Source source) {
		Path absolute = executable.toAbsolutePath();
		if (!Files.isExecutable(absolute)) {
			throw new IllegalStateException(absolute + " (from " + source + ") is not an executable file");
		}
		return new RedisBinary(absolute, readVersion(absolute), source);
	}

	private static String readVersion(Path executable) {
		try {
			Process process = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(10, TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
			Matcher matcher = VERSION.matcher(output);
			if (!matcher.find()) {
				throw new IllegalStateException("Unexpected '" + executable + " --version' output: " + output);
			}
			return matcher.group(1);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot run " + executable, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running " + executable, ex);
		}
	}

	/** Resource names as shipped in embedded-redis 1.4.4 (the only version this harness is tested with). */
	private static String embeddedResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
		boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
		if (os.contains("linux") && x64) {
			return "redis-server-6.2.6-v5-linux-amd64";
		}
		if (os.contains("linux") && arm64) {
			return "redis-server-6.2.7-linux-arm64";
		}
		if (os.contains("mac") && x64) {
			return "redis-server-6.2.6-v5-darwin-amd64";
		}
		if (os.contains("mac") && arm64) {
			return "redis-server-6.2.6-v5-darwin-arm64";
		}
		throw new IllegalStateException("No embedded redis-server for " + os + "/" + arch
				+ "; install redis-server or set " + ENV);
	}
}
