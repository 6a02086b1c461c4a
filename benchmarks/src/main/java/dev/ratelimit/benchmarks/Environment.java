package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.ratelimit.benchmarks.contenders.ArtifactVersion;

/**
 * Where and with what the benchmarks ran, for the report.
 *
 * @param date the day of the run
 * @param cpu the CPU model
 * @param cores the number of cores the JVM sees
 * @param memoryGiB physical memory
 * @param os operating system and kernel
 * @param java the Java runtime
 * @param redis the Redis server version and where its binary came from
 * @param revision the project's revision ({@code git describe}), given by run.sh
 * @param libraries versions of the measured and underlying libraries
 */
public record Environment(LocalDate date, String cpu, int cores, long memoryGiB, String os, String java, String redis,
		String revision, Map<String, String> libraries) {

	/** Describes this machine; {@code redis} is the server's version and source. */
	public static Environment describe(String redis) {
		Map<String, String> libraries = new LinkedHashMap<>();
		libraries.put("ratelimit", ArtifactVersion.of("dev.ratelimit", "ratelimit-spring-boot-autoconfigure"));
		libraries.put("Lettuce", ArtifactVersion.of("io.lettuce", "lettuce-core"));
		libraries.put("Spring Data Redis", ArtifactVersion.of("org.springframework.data", "spring-data-redis"));
		libraries.put("bucket4j", ArtifactVersion.of("com.bucket4j", "bucket4j_jdk17-lettuce"));
		libraries.put("Redisson", ArtifactVersion.of("org.redisson", "redisson"));
		libraries.put("Spring Cloud Gateway",
				ArtifactVersion.of("org.springframework.cloud", "spring-cloud-gateway-server-webflux"));
		libraries.put("HdrHistogram", ArtifactVersion.of("org.hdrhistogram", "HdrHistogram"));
		long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getTotalMemorySize();
		return new Environment(LocalDate.now(), cpuModel(), Runtime.getRuntime().availableProcessors(),
				Math.round(memory / (1024.0 * 1024 * 1024)),
				System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
				System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"), redis,
				System.getProperty("bench.revision", "unknown"), libraries);
	}

	private static String cpuModel() {
		try {
			return Files.readAllLines(Path.of("/proc/cpuinfo"))
				.stream()
				.filter((line) -> line.startsWith("model name"))
				.map((line) -> line.substring(line.indexOf(':') + 1).strip())
				.findFirst()
				.orElse("unknown");
		}
		catch (IOException ex) {
			return "unknown";
		}
	}

}
