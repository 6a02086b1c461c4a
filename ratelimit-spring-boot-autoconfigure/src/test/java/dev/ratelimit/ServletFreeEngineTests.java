package dev.ratelimit;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import dev.ratelimit.web.ServletRateLimitRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine refers to no servlet type, so that any web stack can drive it: the public API, the algorithms, rules,
 * keys, stores and resilience, the {@code @RateLimited} aspect and the auto-configuration they need. Checked in the
 * compiled classes, which also catches what an import check misses (fully qualified names, signatures).
 */
class ServletFreeEngineTests {

	private static final String SERVLET = "jakarta/servlet/";

	private static final List<String> ENGINE_PACKAGES = List.of("dev/ratelimit", "dev/ratelimit/algorithm",
			"dev/ratelimit/rule", "dev/ratelimit/key", "dev/ratelimit/local", "dev/ratelimit/redis",
			"dev/ratelimit/resilience", "dev/ratelimit/adaptive");

	/** Classes outside the engine packages that start without the Servlet API (their nested classes may not). */
	private static final List<String> ENGINE_CLASSES = List.of("dev/ratelimit/aop/RateLimitedAspect",
			"dev/ratelimit/aop/AnnotatedLimits", "dev/ratelimit/aop/CurrentRequest",
			"dev/ratelimit/aop/RateLimitedMethodsValidator", "dev/ratelimit/aop/CallCompletion",
			"dev/ratelimit/autoconfigure/RateLimitAutoConfiguration",
			"dev/ratelimit/autoconfigure/RateLimitAopAutoConfiguration", "dev/ratelimit/autoconfigure/RuleCompiler");

	@Test
	void engineClassesReferToNoServletType() throws IOException, URISyntaxException {
		Path classes = Path.of(RateLimitRequest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
		List<Path> engine = new ArrayList<>();
		for (String name : ENGINE_PACKAGES) {
			try (Stream<Path> files = Files.list(classes.resolve(name))) {
				files.filter((file) -> file.toString().endsWith(".class")).forEach(engine::add);
			}
		}
		ENGINE_CLASSES.forEach((name) -> engine.add(classes.resolve(name + ".class")));
		assertThat(engine).as("engine classes").hasSizeGreaterThan(60);
		List<String> referringToServlet = new ArrayList<>();
		for (Path file : engine) {
			if (refersToServlet(file)) {
				referringToServlet.add(classes.relativize(file).toString());
			}
		}
		assertThat(referringToServlet).isEmpty();
		assertThat(refersToServlet(classes.resolve(ServletRateLimitRequest.class.getName().replace('.', '/') + ".class")))
			.as("the servlet adapter, whose references the check must see")
			.isTrue();
	}

	private static boolean refersToServlet(Path classFile) throws IOException {
		return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1).contains(SERVLET);
	}

}
