package dev.ratelimit.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.ratelimit.Algorithm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The charts and the table of docs/algorithms.md are what {@code benchmarks/run.sh charts} draws today: the trace is
 * played through the Java reference and through Redis (which must agree on every decision), and the committed images
 * and table must equal what comes out.
 */
class AlgorithmChartsTests {

	private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

	@Test
	void committedChartsAndTableAreWhatTheEngineDrawsToday(@TempDir Path dir) throws Exception {
		List<AlgorithmCharts.Run> runs = AlgorithmCharts.runAgainstFreshRedis();
		AlgorithmCharts.write(runs, dir);
		String page = Files.readString(ROOT.resolve("docs/algorithms.md"));
		for (AlgorithmCharts.Run run : runs) {
			String name = AlgorithmCharts.fileName(run.algorithm());
			assertThat(ROOT.resolve("docs/images/" + name)).as("docs/images/%s: run benchmarks/run.sh charts", name)
				.hasSameTextualContentAs(dir.resolve(name));
			assertThat(page).contains("](images/" + name + ")");
		}
		assertThat(page).as("the table of docs/algorithms.md: run benchmarks/run.sh charts")
			.contains(AlgorithmCharts.table(runs));
	}

	@Test
	void eachAlgorithmAdmitsNoMoreThanItPromises() {
		List<AlgorithmCharts.Run> runs = AlgorithmCharts.runAgainstFreshRedis();
		assertThat(runs).extracting(AlgorithmCharts.Run::algorithm).containsExactlyElementsOf(AlgorithmCharts.ALGORITHMS);
		for (AlgorithmCharts.Run run : runs) {
			assertThat(run.points()).hasSize(AlgorithmCharts.trace().size());
			// a burst plus the rate, or two windows' worth across a boundary: never more than twice the limit
			assertThat(run.mostInAnyPeriod()).as(run.algorithm().configName()).isLessThanOrEqualTo(2 * AlgorithmCharts.LIMIT);
		}
		// the log holds the limit in every period; the three bucket algorithms decide alike for the same parameters
		assertThat(run(runs, Algorithm.SLIDING_WINDOW_LOG).mostInAnyPeriod()).isEqualTo(AlgorithmCharts.LIMIT);
		assertThat(run(runs, Algorithm.TOKEN_BUCKET).points()).isEqualTo(run(runs, Algorithm.GCRA).points());
		assertThat(run(runs, Algorithm.LEAKY_BUCKET).points()).isEqualTo(run(runs, Algorithm.GCRA).points());
	}

	private static AlgorithmCharts.Run run(List<AlgorithmCharts.Run> runs, Algorithm algorithm) {
		return runs.stream().filter((run) -> run.algorithm() == algorithm).findFirst().orElseThrow();
	}

}
