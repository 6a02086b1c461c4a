package dev.ratelimit.sample.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/getting-started.md, run: the application its snippets make (Java compiled, application.yml joined, the
 * dependencies of its pom snippets on the class path) starts against a Redis, logs the rule as shown, and answers
 * every {@code $ curl} of the guide as the guide shows. The README's quick start is the guide's first rule.
 */
@RedisStandaloneTest
@ExtendWith(OutputCaptureExtension.class)
class GettingStartedGuideTests {

	private static final Pattern ARTIFACT = Pattern.compile("<artifactId>([^<]+)</artifactId>");

	private final Markdown guide = Markdown.read(Markdown.repositoryRoot().resolve("docs/getting-started.md"));

	@Test
	void theGuidesApplicationStartsAndAnswersEveryCurlAsShown(RedisEndpoint redis, @TempDir Path dir,
			CapturedOutput output) {
		GuideApplication application = GuideApplication.from(this.guide, dir);
		List<CurlTranscript.Step> steps = new ArrayList<>();
		this.guide.blocks().forEach((block) -> steps.addAll(CurlTranscript.steps(block)));
		assertThat(steps).extracting(CurlTranscript.Step::command)
			.anyMatch((command) -> command.startsWith("curl -i localhost:8080/hello"))
			.anyMatch((command) -> command.contains("/actuator/ratelimits/"))
			.anyMatch((command) -> command.contains("/actuator/prometheus"));
		// GCRA's burst of 5 comes back at one unit every 2 s: a machine that takes longer than that between the first
		// and the last request of the guide sees one more admitted than shown; such a run is tried again, at most twice
		String failure = null;
		for (int attempt = 0; attempt < 3; attempt++) {
			redis.flushAll();
			try (ConfigurableApplicationContext context = application.run("server.port=0",
					"spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port(),
					"sample.embedded-redis=never", "ratelimit.redis.timeout=5s")) {
				int port = ((WebServerApplicationContext) context).getWebServer().getPort();
				long started = System.nanoTime();
				failure = firstDifference(new CurlTranscript(port), steps);
				if (failure == null || System.nanoTime() - started < 1_500_000_000L) {
					break;
				}
			}
		}
		assertThat(failure).as("docs/getting-started.md against its own application").isNull();
		for (Markdown.Block block : this.guide.blocks()) {
			if (block.language().equals("text") && block.text().startsWith("d.ratelimit.")) {
				for (String line : block.text().split("\n")) {
					assertThat(output.getOut()).contains(line.substring(line.indexOf(" : ") + 3));
				}
			}
		}
	}

	private static String firstDifference(CurlTranscript transcript, List<CurlTranscript.Step> steps) {
		for (CurlTranscript.Step step : steps) {
			String actual = transcript.run(step.command());
			String difference = CurlTranscript.difference(step.expected(), actual);
			if (difference != null) {
				return "line " + step.line() + ": $ " + step.command() + "\n" + difference;
			}
		}
		return null;
	}

	@Test
	void theGuidesDependenciesAreTheOnesTheTestRunsWith() {
		String classPath = System.getProperty("java.class.path");
		List<String> artifacts = new ArrayList<>();
		this.guide.blocks().stream().filter((block) -> block.language().equals("xml")).forEach((block) -> {
			Matcher artifact = ARTIFACT.matcher(block.text());
			while (artifact.find()) {
				artifacts.add(artifact.group(1));
			}
		});
		assertThat(artifacts).contains("ratelimit-spring-boot-starter", "spring-boot-starter-actuator",
				"micrometer-registry-prometheus");
		assertThat(artifacts).allSatisfy((artifact) -> assertThat(classPath).contains(artifact));
	}

	@Test
	void theReadmesQuickStartIsTheGuidesFirstRule() {
		Markdown readme = Markdown.read(Markdown.repositoryRoot().resolve("README.md"));
		Markdown.Block quickStartRule = readme.blocks().stream()
			.filter((block) -> block.language().equals("yaml"))
			.findFirst()
			.orElseThrow();
		Markdown.Block guideRule = this.guide.blocks().stream()
			.filter((block) -> block.language().equals("yaml"))
			.findFirst()
			.orElseThrow();
		assertThat(quickStartRule.text()).isEqualTo(guideRule.text());
		Markdown.Block quickStartCurl = readme.blocks().stream()
			.filter((block) -> block.text().startsWith("$ curl"))
			.findFirst()
			.orElseThrow();
		CurlTranscript.Step readmeStep = CurlTranscript.steps(quickStartCurl).get(0);
		CurlTranscript.Step guideStep = this.guide.blocks().stream()
			.flatMap((block) -> CurlTranscript.steps(block).stream())
			.findFirst()
			.orElseThrow();
		assertThat(readmeStep.command()).isEqualTo(guideStep.command());
		assertThat(guideStep.expected()).startsWith(readmeStep.expected().replace("HTTP/1.1 200\n", "HTTP/1.1 200 \n"));
	}

	@Test
	void aTranscriptThatDiffersFromTheResponseFails() {
		assertThat(CurlTranscript.difference("RateLimit: \"hello\";r=4;t=2\n", "RateLimit: \"hello\";r=4;t=10\n"))
			.contains("t=10");
		assertThat(CurlTranscript.difference("RateLimit: \"hello\";r=4;t=2\n", "RateLimit: \"hello\";r=3;t=2\n"))
			.contains("r=3");
		assertThat(CurlTranscript.difference("200 200 429 \n", "200 200 200 \n")).isNotNull();
		assertThat(CurlTranscript.difference("RateLimit: \"hello\";r=4;t=2\n", "RateLimit: \"hello\";r=4;t=1\n")).isNull();
		assertThat(CurlTranscript.difference("Date: Fri, 27 Nov 2026 12:07:38 GMT\n", "Date: Sat, 28 Nov 2026 13:00:01 GMT\n"))
			.isNull();
	}

}
