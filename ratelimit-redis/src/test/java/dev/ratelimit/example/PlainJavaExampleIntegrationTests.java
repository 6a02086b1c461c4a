package dev.ratelimit.example;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The plain-Java example of {@code docs/engine.md}: it decides against a real Redis in a JVM of its own whose class
 * path is this module's minus every Spring jar (so no Spring class can be loaded, let alone a context), and the page
 * shows exactly its code.
 */
@RedisStandaloneTest
class PlainJavaExampleIntegrationTests {

	private static final Path SOURCE = Path.of("src/test/java/dev/ratelimit/example/PlainJavaExample.java");

	private static final Path PAGE = Path.of("../docs/engine.md");

	@Test
	void decidesAgainstRedisInAJvmWithoutSpring(RedisEndpoint redis) throws Exception {
		List<String> classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.contains("spring"))
			.toList();
		assertThat(classPath).noneMatch((entry) -> entry.contains("spring"))
			.anyMatch((entry) -> entry.contains("ratelimit-core"))
			.anyMatch((entry) -> entry.contains("lettuce-core"));
		String user = "plain-" + UUID.randomUUID();
		Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
				String.join(File.pathSeparator, classPath), PlainJavaExample.class.getName(), redis.uri(), user)
			.redirectErrorStream(true)
			.start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		assertThat(output).as(output)
			.contains("sms 1: allowed (remaining 4, decided by Redis)")
			.contains("sms 5: allowed (remaining 0, decided by Redis)")
			.containsPattern("sms 6: denied, retry after 1[12] s \\(remaining 0, decided by Redis\\)")
			.doesNotContain("this instance");
		Long keys = redis.call((commands) -> commands.exists("rl:{sms:" + user + "}"));
		assertThat(keys).as("the key in Redis").isEqualTo(1L);
	}

	@Test
	void thePageShowsTheExampleAsItRuns() throws IOException {
		String source = Files.readString(SOURCE);
		String example = source.substring(source.indexOf("// tag::example[]\n") + "// tag::example[]\n".length(),
				source.indexOf("\t\t// end::example[]"));
		String dedented = example.lines()
			.map((line) -> line.startsWith("\t\t") ? line.substring(2) : line)
			.map((line) -> line.replace("\t", "    "))
			.collect(Collectors.joining("\n"));
		assertThat(Files.readString(PAGE)).as("docs/engine.md shows PlainJavaExample's code").contains(dedented);
	}

}
