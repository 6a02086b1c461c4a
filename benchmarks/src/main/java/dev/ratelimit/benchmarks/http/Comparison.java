package dev.ratelimit.benchmarks.http;

import java.util.List;
import java.util.Locale;

/**
 * What one instance adds to another measured in the same rounds: the difference of their p50 and p99 over all rounds,
 * the lowest and highest difference of one round's (round k of one against round k of the other, seconds apart), and
 * the difference of their server CPU time per request.
 *
 * @param with the instance with what is measured (the limiter, an observation)
 * @param without the same application without it
 */
record Comparison(Tally with, Tally without) {

	/** The targets for the limiter on Redis: at most this much added p50, in milliseconds. */
	static final double TARGET_P50 = 0.2;

	/** The targets for the limiter on Redis: at most this much added p99, in milliseconds. */
	static final double TARGET_P99 = 1.0;

	double addedP50() {
		return this.with.p50() - this.without.p50();
	}

	double addedP99() {
		return this.with.p99() - this.without.p99();
	}

	/** Returns the lowest and highest added p50 of one round, e.g. {@code +0.150 to +0.172}. */
	String roundsP50() {
		return range(this.with.roundP50s(), this.without.roundP50s());
	}

	/** Returns the lowest and highest added p99 of one round. */
	String roundsP99() {
		return range(this.with.roundP99s(), this.without.roundP99s());
	}

	/** Returns the added server CPU time per request in microseconds, or {@code n/a}. */
	String addedServerCpu() {
		if (!this.with.hasServerCpu() || !this.without.hasServerCpu()) {
			return "n/a";
		}
		return String.format(Locale.ROOT, "%+.1f",
				this.with.serverCpuMicrosPerRequest() - this.without.serverCpuMicrosPerRequest());
	}

	/** Returns this instance's requests per second divided by the other's. */
	double throughputRatio() {
		return this.with.perSecond() / this.without.perSecond();
	}

	private static String range(List<Double> with, List<Double> without) {
		int rounds = Math.min(with.size(), without.size());
		double low = Double.MAX_VALUE;
		double high = -Double.MAX_VALUE;
		for (int k = 0; k < rounds; k++) {
			double added = with.get(k) - without.get(k);
			low = Math.min(low, added);
			high = Math.max(high, added);
		}
		return (rounds == 0) ? "–" : String.format(Locale.ROOT, "%+.3f to %+.3f", low, high);
	}

}
