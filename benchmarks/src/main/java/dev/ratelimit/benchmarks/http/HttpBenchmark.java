package dev.ratelimit.benchmarks.http;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.benchmarks.http.SampleSetup.Limiter;
import dev.ratelimit.benchmarks.load.RedisProbe;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;

/**
 * Runs the HTTP benchmark: starts a Redis and one sample instance per {@link SampleSetup}, measures them in rotating
 * rounds ({@link MeasurementRounds}), checks that Lettuce observation is on exactly where a setup says so, and writes
 * {@code benchmarks-http.md} ({@link HttpReport}).
 */
public final class HttpBenchmark {

	private static final SampleSetup REDIS = new SampleSetup("with the limiter (Redis store)", Limiter.REDIS, false);

	private static final SampleSetup LOCAL = new SampleSetup("with the limiter (local store)", Limiter.LOCAL, false);

	private static final SampleSetup OFF = new SampleSetup("without (`ratelimit.enabled=false`)", Limiter.OFF, false);

	private static final SampleSetup OBSERVED_REDIS = new SampleSetup(
			"Lettuce observation on, with the limiter (Redis store)", Limiter.REDIS, true);

	private static final SampleSetup OBSERVED_OFF = new SampleSetup(
			"Lettuce observation on, without (`ratelimit.enabled=false`)", Limiter.OFF, true);

	/** The limiter on Redis without its decision observations (the REDIS row has them: the sample has Actuator). */
	private static final SampleSetup UNOBSERVED_REDIS = new SampleSetup(
			"with the limiter (Redis store), `ratelimit.observations.enabled=false`", Limiter.REDIS, false,
			Path.of(System.getProperty("java.home")), List.of("--ratelimit.observations.enabled=false"));

	private static final MeasurementRounds ROUNDS = new MeasurementRounds(Duration.ofSeconds(20), Duration.ofSeconds(4),
			5, "/api/hello");

	private HttpBenchmark() {
	}

	/**
	 * Measures and writes the report.
	 * @param jar the sample jar
	 * @param docs the directory of {@code benchmarks-http.md}
	 */
	public static void run(Path jar, Path docs) throws Exception {
		if (!Files.exists(jar)) {
			throw new IllegalStateException("Build the sample first: ./mvnw -pl sample-app -am package -DskipTests");
		}
		long started = System.nanoTime();
		List<SampleSetup> setups = new ArrayList<>(List.of(REDIS, LOCAL, OFF, OBSERVED_REDIS, OBSERVED_OFF,
				UNOBSERVED_REDIS));
		SampleSetup virtual = virtualThreads();
		if (virtual != null) {
			setups.add(virtual);
		}
		List<SampleApp> apps = new ArrayList<>();
		try (RedisServerProcess redis = RedisServerProcess.start()) {
			RedisClient redisClient = RedisClient.create(redis.uri());
			try (RedisProbe probe = new RedisProbe(redisClient)) {
				for (SampleSetup setup : setups) {
					apps.add(SampleApp.start(jar, redis.port(), setup));
				}
				List<Tally> tallies = ROUNDS.run(apps, probe);
				for (SampleApp app : apps) {
					checkObservation(app);
				}
				HttpResults results = new HttpResults(tallies.get(0), tallies.get(1), tallies.get(2), tallies.get(3),
						tallies.get(4), tallies.get(5), (virtual != null) ? tallies.get(6) : null, probe.version(),
						Duration.ofNanos(System.nanoTime() - started));
				String markdown = new HttpReport(ROUNDS).markdown(results);
				System.out.print(markdown);
				Files.createDirectories(docs);
				Files.writeString(docs.resolve("benchmarks-http.md"), markdown, StandardCharsets.UTF_8);
			}
			finally {
				redisClient.shutdown();
				for (SampleApp app : apps) {
					app.close();
				}
			}
		}
	}

	/**
	 * The limiter on Redis with {@code spring.threads.virtual.enabled=true}, on the JDK 21+ that
	 * {@code -Dbench.java21.home} names (e.g. /usr/lib/jvm/temurin-25-jdk-amd64); {@code null} without one, and the
	 * report says the row is missing.
	 */
	private static @Nullable SampleSetup virtualThreads() {
		String home = System.getProperty("bench.java21.home");
		if (home == null || home.isBlank()) {
			return null;
		}
		return new SampleSetup("with the limiter (Redis store), virtual threads (Java " + Runtime.version().feature()
				+ " benchmark, sample on " + Path.of(home).getFileName() + ")", Limiter.REDIS, false, Path.of(home),
				List.of("--spring.threads.virtual.enabled=true"));
	}

	/**
	 * Fails unless an instance that sends Redis commands per request (the limiter on Redis) has recorded Lettuce
	 * observations exactly when its setup turns them on, so that a row cannot claim a setting the sample ignored.
	 */
	private static void checkObservation(SampleApp app) throws Exception {
		SampleSetup setup = app.setup();
		if (setup.limiter() == Limiter.REDIS && app.hasLettuceObservations() != setup.lettuceObserved()) {
			throw new IllegalStateException(setup.label() + ": Lettuce observations "
					+ (setup.lettuceObserved() ? "expected but not recorded" : "recorded although turned off"));
		}
	}

}
