package dev.ratelimit.benchmarks.http;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** What one instance adds to another: over all rounds, and the range of round k against round k. */
class ComparisonTests {

	@Test
	void addsOverAllRoundsAndRangesOverSingleRounds() {
		Tally with = tally(300, 500, 400);
		Tally without = tally(100, 200, 300);
		Comparison comparison = new Comparison(with, without);
		assertThat(comparison.addedP50()).isCloseTo(0.2, within(1e-9));
		assertThat(comparison.roundsP50()).isEqualTo("+0.100 to +0.300");
		assertThat(comparison.addedServerCpu()).isEqualTo("+0.0");
	}

	@Test
	void serverCpuIsUnknownWhenOneRoundCouldNotReadIt() {
		Tally unknown = new Tally("unknown");
		unknown.round(new Tally.Round(histogram(100), 1, 1_000, -1, 0));
		assertThat(new Comparison(unknown, tally(100)).addedServerCpu()).isEqualTo("n/a");
	}

	/** Returns a tally of rounds of one request each, taking the given microseconds. */
	private static Tally tally(long... micros) {
		Tally tally = new Tally("instance");
		for (long value : micros) {
			tally.round(new Tally.Round(histogram(value), 1, 1_000, 10, 0));
		}
		return tally;
	}

	private static Histogram histogram(long micros) {
		Histogram histogram = Tally.newHistogram();
		histogram.recordValue(micros);
		return histogram;
	}

}
