package dev.ratelimit.gateway;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;

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
	void onlyTheAutoConfigurationUsesBootAutoConfigure() throws URISyntaxException {
		JavaClasses classes = new ClassFileImporter().importLocations(List.of(Location.of(Path
			.of(RateLimitGatewayFilterFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI()))));
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
