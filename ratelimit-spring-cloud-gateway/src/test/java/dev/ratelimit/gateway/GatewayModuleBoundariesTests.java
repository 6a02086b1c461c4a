package dev.ratelimit.gateway;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * In this module only its auto-configuration uses {@code org.springframework.boot.autoconfigure} (the rest of the
 * project is held to the same rule by {@code ModuleBoundariesTests}).
 */
class GatewayModuleBoundariesTests {

	@Test
	void onlyTheAutoConfigurationUsesBootAutoConfigure() throws URISyntaxException, IOException {
		// the jar in a reactor build past package, the classes directory in a build of this module alone
		Path path = Path.of(RateLimitGatewayFilterFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		Location location;
		if (Files.isRegularFile(path)) {
			try (JarFile jar = new JarFile(path.toFile())) {
				location = Location.of(jar);
			}
		}
		else {
			location = Location.of(path);
		}
		JavaClasses classes = new ClassFileImporter().importLocations(List.of(location));
		assertThat(classes.contain(RateLimitGatewayAutoConfiguration.class)).isTrue();
		noClasses().that()
			.doNotHaveSimpleName(RateLimitGatewayAutoConfiguration.class.getSimpleName())
			.and()
			.areNotNestedClasses()
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot.autoconfigure..")
			.check(classes);
	}

}
