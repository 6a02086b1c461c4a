package dev.ratelimit.benchmarks.load;

import org.HdrHistogram.Histogram;

/**
 * What one or more runs of the load generator saw: requests completed, how many were admitted or failed, the wall
 * time, the latency of every request (nanoseconds, from just before the call to just after it returned), and the CPU
 * time the benchmark JVM and the Redis process used meanwhile.
 *
 * @param requests requests completed (admitted, denied or failed)
 * @param admitted requests admitted
 * @param errors requests that threw
 * @param elapsedNanos wall time from the common start until the last thread finished
 * @param latency latency of every request in nanoseconds
 * @param clientCpuMicros CPU time of the benchmark JVM during the run (all its threads: load, client I/O, GC), or 0
 * if not sampled
 * @param redisCpuMicros CPU time of the Redis process during the run (user and system), or 0 if not sampled
 */
public record Measurement(long requests, long admitted, long errors, long elapsedNanos, Histogram latency,
		long clientCpuMicros, long redisCpuMicros) {

	/** Returns completed requests (decisions) per second. */
	public double perSecond() {
		return this.requests * 1e9 / this.elapsedNanos;
	}

	/** Returns admitted requests per second. */
	public double admittedPerSecond() {
		return this.admitted * 1e9 / this.elapsedNanos;
	}

	/** Returns a latency percentile in microseconds. */
	public double latencyMicros(double percentile) {
		return this.latency.getValueAtPercentile(percentile) / 1_000.0;
	}

	/** Returns Redis CPU time per decision, in microseconds. */
	public double redisMicrosPerRequest() {
		return (this.requests == 0) ? 0 : (double) this.redisCpuMicros / this.requests;
	}

	/** Returns the benchmark JVM's CPU time per decision, in microseconds. */
	public double clientMicrosPerRequest() {
		return (this.requests == 0) ? 0 : (double) this.clientCpuMicros / this.requests;
	}

	/** Returns the number of cores Redis kept busy on average (at most 1: Redis executes commands on one thread). */
	public double redisCores() {
		return this.redisCpuMicros * 1_000.0 / this.elapsedNanos;
	}

	/** Returns the number of cores the benchmark JVM kept busy on average. */
	public double clientCores() {
		return this.clientCpuMicros * 1_000.0 / this.elapsedNanos;
	}

	/** Returns this measurement with the CPU times of its run. */
	public Measurement withCpuMicros(long client, long redis) {
		return new Measurement(this.requests, this.admitted, this.errors, this.elapsedNanos, this.latency, client,
				redis);
	}

	/** Returns the sum of two measurements (counts and times add up, latencies merge). */
	public Measurement plus(Measurement other) {
		Histogram merged = this.latency.copy();
		merged.add(other.latency);
		return new Measurement(this.requests + other.requests, this.admitted + other.admitted,
				this.errors + other.errors, this.elapsedNanos + other.elapsedNanos, merged,
				this.clientCpuMicros + other.clientCpuMicros, this.redisCpuMicros + other.redisCpuMicros);
	}

}
