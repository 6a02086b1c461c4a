package dev.ratelimit.rule;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/** Every Lua script of the rule repositories is kept in a native image, through a registrar that Spring AOT finds. */
class RuleScriptsRuntimeHintsTests {

	private static final String SCRIPTS = "META-INF/ratelimit/rule/";

	@Test
	void everyScriptOnTheClassPathHasAResourceHint() throws IOException {
		RuntimeHints hints = new RuntimeHints();
		new RuleScriptsRuntimeHints().registerHints(hints, getClass().getClassLoader());
		List<String> scripts;
		try (Stream<Path> files = Files.list(Path.of("src/main/resources", SCRIPTS))) {
			scripts = files.map((file) -> file.getFileName().toString()).filter((name) -> name.endsWith(".lua")).toList();
		}
		assertThat(scripts).contains("save-exception.lua", "list-entry.lua");
		assertThat(scripts).allSatisfy((script) -> assertThat(RuntimeHintsPredicates.resource()
			.forResource(SCRIPTS + script)).as("a resource hint for %s", script).accepts(hints));
	}

	@Test
	void springAotFindsTheRegistrar() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class))
			.anySatisfy((registrar) -> assertThat(registrar).isInstanceOf(RuleScriptsRuntimeHints.class));
	}

}
