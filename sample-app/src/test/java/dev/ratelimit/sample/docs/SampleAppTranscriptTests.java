package dev.ratelimit.sample.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.sample.SampleApplication;
import dev.ratelimit.sample.SampleQuotas;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transcripts of docs/sample-app.md, run against the sample app: every {@code $ curl} answers as shown. A block
 * under {@code <!-- transcript: a fresh sample app -->} starts a new application (fresh metrics, an empty embedded
 * Redis), {@code <!-- transcript: 10 s later -->} stands for the wait by emptying Redis and the deny cache (every
 * quota is back, as it would be), other blocks go on with the same application. The rules logged at start-up are the
 * ones shown. The page with the real output of this run is written to {@code sample-app/target/docs/sample-app.md}:
 * when the application changed on purpose, diff it with the page and take what is right.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleAppTranscriptTests {

	private static final String FRESH = "<!-- transcript: a fresh sample app -->";

	private static final String LATER = "<!-- transcript: 10 s later -->";

	private final Markdown page = Markdown.read(Markdown.repositoryRoot().resolve("docs/sample-app.md"));

	@Test
	void everyCurlOfTheSampleAppPageAnswersAsShown(CapturedOutput output) {
		// GCRA gives /api/hello one unit back every 2 s: a block that a loaded machine took longer than that to send
		// sees one more admitted than shown; such a run is tried again from fresh applications, twice at most
		PageRun run = runPage();
		for (int attempt = 1; attempt < 3 && !run.failures().isEmpty() && run.slow(); attempt++) {
			run = runPage();
		}
		List<String> failures = run.failures();
		int checked = run.checked();
		RealOutput real = run.real();
		real.write(Path.of("target/docs/sample-app.md"));
		assertThat(checked).isGreaterThanOrEqualTo(15);
		assertThat(failures).as("docs/sample-app.md against the sample app").isEmpty();
		for (Markdown.Block block : this.page.blocks()) {
			for (String line : block.text().split("\n")) {
				if (line.startsWith("d.ratelimit.autoconfigure.RuleCompiler")) {
					assertThat(output.getOut()).contains(line.substring(line.indexOf(" : ") + 3));
				}
			}
		}
	}

	/**
	 * What one run of the page's transcripts found.
	 * @param failures the steps whose output differs from the one shown
	 * @param checked how many steps ran
	 * @param slow whether a block took longer than 1.5 s to send
	 * @param real the page with the real output of the steps that differ
	 */
	private record PageRun(List<String> failures, int checked, boolean slow, RealOutput real) {
	}

	private PageRun runPage() {
		List<String> failures = new ArrayList<>();
		RealOutput real = new RealOutput(this.page);
		int checked = 0;
		boolean slow = false;
		ConfigurableApplicationContext context = null;
		try {
			for (Markdown.Block block : this.page.blocks()) {
				List<CurlTranscript.Step> steps = CurlTranscript.steps(block);
				if (steps.isEmpty()) {
					continue;
				}
				String marker = this.page.lineBefore(block);
				if (marker.equals(FRESH)) {
					if (context != null) {
						context.close();
					}
					context = new SpringApplicationBuilder(SampleApplication.class).run("--server.port=0",
							"--sample.embedded-redis=always", "--ratelimit.redis.timeout=5s");
				}
				else if (marker.equals(LATER)) {
					SampleQuotas.restore(context);
				}
				assertThat(context).as("a transcript before any " + FRESH + " (line " + block.line() + ")").isNotNull();
				CurlTranscript transcript = new CurlTranscript(((WebServerApplicationContext) context).getWebServer().getPort());
				long started = System.nanoTime();
				for (CurlTranscript.Step step : steps) {
					String actual = transcript.run(step.command());
					String difference = CurlTranscript.difference(step.expected(), actual);
					checked++;
					if (difference != null) {
						real.record(step, actual);
						failures.add("line " + step.line() + ": $ " + step.command() + "\n" + difference);
					}
				}
				slow |= System.nanoTime() - started > 1_500_000_000L;
			}
		}
		finally {
			if (context != null) {
				context.close();
			}
		}
		return new PageRun(failures, checked, slow, real);
	}

}
