package dev.ratelimit;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchRule;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each module may use, checked in the compiled classes of each module (its jar or its classes directory, found
 * from one class it holds), so that a reference the compiler allowed through a dependency added to a module's pom
 * (an import, a fully qualified name, a signature) is still caught:
 * <ul>
 * <li>{@code ratelimit-core}: nothing of Spring at all, no servlet API, no Lettuce, no Reactor;</li>
 * <li>{@code ratelimit-redis}: nothing of the web, of Spring Boot or of Reactor; Spring Data Redis only in the adapter
 * to its connection factories;</li>
 * <li>{@code ratelimit-spring}: nothing of Spring Boot; the servlet API only in the servlet adapters;</li>
 * <li>{@code org.springframework.boot.autoconfigure} only in {@code dev.ratelimit.autoconfigure} (the gateway module
 * checks its own).</li>
 * </ul>
 */
class ModuleBoundariesTests {

	private static final JavaClasses CORE = classesOfModuleHolding(RateLimiter.class);

	private static final JavaClasses REDIS = classesOfModuleHolding(RedisRateLimitStore.class);

	private static final JavaClasses SPRING = classesOfModuleHolding(RateLimitedAspect.class);

	private static final JavaClasses AUTOCONFIGURE = classesOfModuleHolding(RateLimitAutoConfiguration.class);

	@Test
	void eachModuleIsImportedFromItsOwnLocation() {
		assertThat(CORE.contain(RateLimiter.class)).isTrue();
		assertThat(CORE.contain(RateLimited.class)).as("@RateLimited lives with its aspect").isFalse();
		assertThat(SPRING.contain(RateLimited.class)).isTrue();
		assertThat(REDIS.contain(RateLimiter.class)).isFalse();
		assertThat(CORE.size()).as("core classes").isGreaterThan(80);
		assertThat(REDIS.size()).as("redis classes").isGreaterThan(20);
		assertThat(SPRING.size()).as("spring classes").isGreaterThan(80);
	}

	@Test
	void coreUsesNoSpringNoServletNoRedisClientNoReactor() {
		noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework..", "jakarta.servlet..", "io.lettuce..", "reactor..")
			.because("ratelimit-core is the engine without Spring, a web stack or a Redis client")
			.check(CORE);
	}

	@Test
	void redisUsesNoWebNoBootAndSpringDataOnlyInItsAdapter() {
		noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.web..", "org.springframework.http..", "org.springframework.boot..",
					"jakarta.servlet..", "reactor.netty..")
			.because("ratelimit-redis is the store, usable without Spring Boot or a web stack")
			.check(REDIS);
		noClasses().that()
			.doNotHaveFullyQualifiedName(SpringDataRedisConnection.class.getName())
			.and()
			.doNotHaveFullyQualifiedName("dev.ratelimit.redis.LimiterConnectionFactory")
			.and()
			.doNotHaveFullyQualifiedName("dev.ratelimit.redis.LimiterConnectionFactory$RejectingClientConfiguration")
			.and()
			.doNotHaveFullyQualifiedName("dev.ratelimit.redis.RedisScriptsRuntimeHints")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework..")
			.because("Spring Data Redis is an optional dependency: only the adapter to its factories may load it (and"
					+ " the runtime hints, which only Spring AOT loads, through META-INF/spring/aot.factories)")
			.check(REDIS);
	}

	@Test
	void springIntegrationUsesNoSpringBoot() {
		noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot..")
			.because("ratelimit-spring works in a Spring application without Spring Boot")
			.check(SPRING);
	}

	@Test
	void onlyAutoConfigurationsUseBootAutoConfigure() {
		ArchRule rule = noClasses().that()
			.resideOutsideOfPackage("dev.ratelimit.autoconfigure..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot.autoconfigure..");
		rule.check(CORE);
		rule.check(REDIS);
		rule.check(SPRING);
		rule.check(AUTOCONFIGURE);
	}

	/**
	 * The engine refers to no servlet type, so that any web stack can drive it: everything but the servlet adapters
	 * ({@code dev.ratelimit.web} and the servlet parts of the aspect) and the servlet auto-configuration.
	 */
	@Test
	void theEngineRefersToNoServletType() {
		noClasses().that()
			.resideInAnyPackage("dev.ratelimit", "dev.ratelimit.algorithm..", "dev.ratelimit.rule..",
					"dev.ratelimit.key..", "dev.ratelimit.local..", "dev.ratelimit.redis..",
					"dev.ratelimit.resilience..", "dev.ratelimit.adaptive..", "dev.ratelimit.lease..",
					"dev.ratelimit.store..", "dev.ratelimit.admission..")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.aop.RateLimitedAspect")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.aop.AnnotatedLimits")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.aop.CurrentRequest")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.aop.RateLimitedMethodsValidator")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.aop.CallCompletion")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.autoconfigure.RateLimitAutoConfiguration")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration")
			.or()
			.haveFullyQualifiedName("dev.ratelimit.autoconfigure.RuleCompiler")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("jakarta.servlet..")
			.check(classesOfModulesHolding(RateLimiter.class, RedisRateLimitStore.class, RateLimitedAspect.class,
					RateLimitAutoConfiguration.class));
		JavaClass adapter = SPRING.get(ServletRateLimitRequest.class);
		assertThat(adapter.getDirectDependenciesFromSelf())
			.as("the servlet adapter, whose references the check must see")
			.anyMatch((dependency) -> dependency.getTargetClass().getPackageName().startsWith("jakarta.servlet"));
	}

	private static JavaClasses classesOfModuleHolding(Class<?> type) {
		return classesOfModulesHolding(type);
	}

	/** The classes of the jars (or classes directories) that hold the types. */
	private static JavaClasses classesOfModulesHolding(Class<?>... types) {
		List<Location> locations = new ArrayList<>();
		for (Class<?> type : types) {
			locations.add(locationOf(type));
		}
		return new ClassFileImporter().importLocations(locations);
	}

	/**
	 * The jar (in a reactor build past {@code package}) or the classes directory (a build of one module) that holds
	 * the type.
	 */
	private static Location locationOf(Class<?> type) {
		try {
			Path path = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
			if (Files.isRegularFile(path)) {
				try (JarFile jar = new JarFile(path.toFile())) {
					return Location.of(jar);
				}
			}
			return Location.of(path);
		}
		catch (URISyntaxException | IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
