package dev.ratelimit.benchmarks.throughput;

import java.util.List;

import dev.ratelimit.benchmarks.load.Measurement;

/**
 * What was measured for one entry of a scenario: all rounds together, and each round's throughput. The throughput
 * reported is the median round, which a burst of load from other processes during one round does not move; the
 * slowest and fastest rounds show how noisy the run was.
 *
 * @param entry what was measured
 * @param total the rounds summed (counts, times, CPU) and merged (latencies)
 * @param roundRates decisions per second of each round
 */
public record EntryResult(Scenario.Entry entry, Measurement total, List<Double> roundRates) {

	/** Returns the median round's decisions per second. */
	public double perSecond() {
		double[] sorted = this.roundRates.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		if (sorted.length == 0) {
			return 0;
		}
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	/** Returns the CPU time (benchmark JVM and Redis together) one decision cost, in microseconds. */
	public double cpuMicrosPerDecision() {
		return this.total.clientMicrosPerRequest() + this.total.redisMicrosPerRequest();
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
