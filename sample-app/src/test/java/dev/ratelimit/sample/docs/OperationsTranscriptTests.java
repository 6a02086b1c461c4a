package dev.ratelimit.sample.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The transcripts of docs/operations.md, run by {@link SamplePageRun} against the sample app (and a second instance
 * sharing its Redis where the page shows two): every {@code $ curl} and {@code $ redis-cli} answers as shown. The page
 * with the real output of this run is written to {@code sample-app/target/docs/operations.md}.
 * <p>
 * And no page shows a transcript that no test runs: every block with a {@code $} line in README.md and docs/ is on a
 * page whose transcripts a test runs, or is marked as an illustration.
 */
class OperationsTranscriptTests {

	/** The pages whose every transcript a test runs, and the test. */
	private static final Set<String> RUN = Set.of("docs/operations.md", // this test
			"docs/sample-app.md", // SampleAppTranscriptTests
			"docs/getting-started.md"); // GettingStartedGuideTests

	private final Markdown page = Markdown.read(Markdown.repositoryRoot().resolve("docs/operations.md"));

	@Test
	void everyCommandOfTheOperationsPageAnswersAsShown() {
		// GCRA gives /api/hello one unit back every 2 s: a block that a loaded machine took longer than that to send
		// sees one more admitted than shown; such a run is tried again from fresh applications, twice at most
		SamplePageRun run = SamplePageRun.of(this.page);
		for (int attempt = 1; attempt < 3 && !run.failures().isEmpty() && run.slow(); attempt++) {
			run = SamplePageRun.of(this.page);
		}
		run.real().write(Path.of("target/docs/operations.md"));
		assertThat(run.checked()).isGreaterThanOrEqualTo(30);
		assertThat(run.failures()).as("docs/operations.md against the sample app").isEmpty();
	}

	@Test
	void everyTranscriptOfTheDocumentationIsRunByATestOrMarkedAsAnIllustration() {
		Path root = Markdown.repositoryRoot();
		List<String> unchecked = new ArrayList<>();
		for (Path file : Markdown.documentation(root)) {
			String name = root.relativize(file).toString().replace('\\', '/');
			Markdown markdown = Markdown.read(file);
			List<Markdown.Block> transcripts = markdown.blocks()
				.stream()
				.filter((block) -> !CurlTranscript.steps(block).isEmpty())
				.toList();
			for (int i = 0; i < transcripts.size(); i++) {
				Markdown.Block block = transcripts.get(i);
				boolean readmeQuickStart = name.equals("README.md") && i == 0; // GettingStartedGuideTests
				if (!RUN.contains(name) && !readmeQuickStart
						&& !markdown.lineBefore(block).startsWith(SamplePageRun.ILLUSTRATION)) {
					unchecked.add(name + ":" + block.line());
				}
			}
		}
		assertThat(unchecked).as("transcripts that no test runs (run them, or mark them <!-- illustration: ... -->"
				+ " and say so in the prose)").isEmpty();
	}

}
