package dev.ratelimit.sample.docs;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transcripts of docs/sample-app.md, run against the sample app by {@link SamplePageRun}: every {@code $ curl}
 * answers as shown. A block under {@code <!-- transcript: a fresh sample app -->} starts a new application (fresh
 * metrics, an empty embedded Redis), {@code <!-- transcript: 10 s later -->} stands for the wait by emptying Redis and
 * the deny cache (every quota is back, as it would be), other blocks go on with the same application. The rules logged
 * at start-up are the ones shown. The page with the real output of this run is written to
 * {@code sample-app/target/docs/sample-app.md}: when the application changed on purpose, diff it with the page and
 * take what is right.
 */
@ExtendWith(OutputCaptureExtension.class)
class SampleAppTranscriptTests {

	private final Markdown page = Markdown.read(Markdown.repositoryRoot().resolve("docs/sample-app.md"));

	@Test
	void everyCurlOfTheSampleAppPageAnswersAsShown(CapturedOutput output) {
		// GCRA gives /api/hello one unit back every 2 s: a block that a loaded machine took longer than that to send
		// sees one more admitted than shown; such a run is tried again from fresh applications, twice at most
		SamplePageRun run = SamplePageRun.of(this.page);
		for (int attempt = 1; attempt < 3 && !run.failures().isEmpty() && run.slow(); attempt++) {
			run = SamplePageRun.of(this.page);
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

}
