package dev.ratelimit.benchmarks.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

/**
 * What the measured rounds of one sample instance added up to: the latency of every request as the client saw it
 * (over all rounds, and each round's p50 and p99), requests and time, and the CPU time the server process and Redis
 * used meanwhile.
 */
final class Tally {

	private final String label;

	private final Histogram latencies = newHistogram();

	private final List<Double> roundP50s = new ArrayList<>();

	private final List<Double> roundP99s = new ArrayList<>();

	private long requests;

	private long nanos;

	private long serverCpuMicros;

	private long redisCpuMicros;

	private boolean serverCpuUnknown;

	Tally(String label) {
		this.label = label;
	}

	/** Returns the name of the instance in the report. */
	String label() {
		return this.label;
	}

	/** Returns a histogram for the latencies of one round, in microseconds. */
	static Histogram newHistogram() {
		return new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
	}

	/** Adds one round. */
	void round(Round round) {
		this.latencies.add(round.latencies());
		this.roundP50s.add(round.latencies().getValueAtPercentile(50) / 1000.0);
		this.roundP99s.add(round.latencies().getValueAtPercentile(99) / 1000.0);
		this.requests += round.requests();
		this.nanos += round.nanos();
		this.serverCpuUnknown |= round.serverCpuMicros() < 0;
		this.serverCpuMicros += round.serverCpuMicros();
		this.redisCpuMicros += round.redisCpuMicros();
	}

	double p50() {
		return percentile(50);
	}

	double p99() {
		return percentile(99);
	}

	/** Returns a latency percentile in milliseconds. */
	double percentile(double percentile) {
		return this.latencies.getValueAtPercentile(percentile) / 1000.0;
	}

	/** Returns each round's p50 in milliseconds, in the order of the rounds. */
	List<Double> roundP50s() {
		return this.roundP50s;
	}

	/** Returns each round's p99 in milliseconds, in the order of the rounds. */
	List<Double> roundP99s() {
		return this.roundP99s;
	}

	double perSecond() {
		return this.requests / (this.nanos / 1e9);
	}

	boolean hasServerCpu() {
		return !this.serverCpuUnknown;
	}

	/** Returns the server's CPU time per request in microseconds (only if {@link #hasServerCpu()}). */
	double serverCpuMicrosPerRequest() {
		return this.serverCpuMicros / (double) this.requests;
	}

	String serverCpuPerRequest() {
		return hasServerCpu() ? String.format(Locale.ROOT, "%.1f", serverCpuMicrosPerRequest()) : "n/a";
	}

	double redisCpuPerRequest() {
		return this.redisCpuMicros / (double) this.requests;
	}

	/**
	 * What one round of one instance measured.
	 *
	 * @param latencies the latency of each of its requests, in microseconds
	 * @param requests requests completed
	 * @param nanos how long the round took
	 * @param serverCpuMicros CPU time of the server process, or negative where it is not known
	 * @param redisCpuMicros CPU time of Redis
	 */
	record Round(Histogram latencies, long requests, long nanos, long serverCpuMicros, long redisCpuMicros) {
	}

}
