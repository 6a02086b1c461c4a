package dev.ratelimit.redis;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Lua script of the store is kept in a native image, through the registrar that Spring AOT finds. */
class RedisScriptsRuntimeHintsTests {

	private static final String SCRIPTS = "META-INF/ratelimit/scripts/";

	@Test
	void everyScriptOnTheClassPathHasAResourceHint() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new RedisScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> scripts = scriptsInResources();
		assertThat(scripts).contains("gcra.lua", "ratelimit.lua", "lease.lua", "sync.lua", "region.lua");
		assertThat(scripts).allSatisfy((script) -> assertThat(RuntimeHintsPredicates.resource()
			.forResource(SCRIPTS + script)).as("a resource hint for %s", script).accepts(hints));
	}

	@Test
	void springAotFindsTheRegistrar() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anySatisfy((registrar) -> assertThat(registrar).isInstanceOf(RedisScriptsRuntimeHints.class));
	}

	/** The scripts as the build copies them (the test runs against this module's own resources). */
	private static List<String> scriptsInResources() throws IOException {
		Path folder = Path.of("src/main/resources", SCRIPTS);
		try (Stream<Path> files = Files.list(folder)) {
			return files.map((file) -> file.getFileName().toString()).filter((name) -> name.endsWith(".lua")).sorted().toList();
		}
	}

}
