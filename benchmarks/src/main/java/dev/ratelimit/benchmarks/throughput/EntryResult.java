package dev.ratelimit.benchmarks.throughput;

import java.util.List;

import dev.ratelimit.benchmarks.load.Measurement;

/**
 * What was measured for one entry of a scenario: all rounds together, and each round's throughput (their spread shows
 * how noisy the run was).
 *
 * @param entry what was measured
 * @param total the rounds summed (counts, times, CPU) and merged (latencies)
 * @param roundRates decisions per second of each round
 */
public record EntryResult(Scenario.Entry entry, Measurement total, List<Double> roundRates) {

	/** Returns decisions per second over all rounds. */
	public double perSecond() {
		return this.total.perSecond();
	}

	/** Returns the slowest round's decisions per second. */
	public double minRound() {
		return this.roundRates.stream().mapToDouble(Double::doubleValue).min().orElse(0);
	}

	/** Returns the fastest round's decisions per second. */
	public double maxRound() {
		return this.roundRates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
	}

}
