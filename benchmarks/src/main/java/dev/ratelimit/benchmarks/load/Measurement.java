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
 * @param callerCpuMicros the part of {@code clientCpuMicros} that the load threads used: the callers' own work (the
 * limiter's code on the calling thread, waiting and being woken, the load generator's counting)
 * @param ioCpuMicros the part of {@code clientCpuMicros} that the clients' I/O threads (Netty event loops) used, or 0
 * if not sampled; the rest of the JVM's CPU is its own (garbage collection, compilation) and other threads'
 * @param scriptCalls script calls ({@code EVALSHA}, {@code EVAL}) Redis executed during the run, or 0 if not sampled
 * @param redisUserMicros the part of {@code redisCpuMicros} spent in user space ({@code used_cpu_user}: Redis's own
 * code and Lua; the rest is the kernel's: the sockets, the wake-ups), or 0 if not sampled
 */
public record Measurement(long requests, long admitted, long errors, long elapsedNanos, Histogram latency,
		long clientCpuMicros, long redisCpuMicros, long callerCpuMicros, long ioCpuMicros, long scriptCalls,
		long redisUserMicros) {

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

	/** Returns the load threads' CPU time per decision, in microseconds. */
	public double callerMicrosPerRequest() {
		return (this.requests == 0) ? 0 : (double) this.callerCpuMicros / this.requests;
	}

	/** Returns the client I/O threads' CPU time per decision, in microseconds. */
	public double ioMicrosPerRequest() {
		return (this.requests == 0) ? 0 : (double) this.ioCpuMicros / this.requests;
	}

	/**
	 * Returns the part of {@link #redisMicrosPerRequest()} that Redis spent in user space (its own code and Lua), in
	 * microseconds; the rest is the kernel's (the sockets, the wake-ups).
	 */
	public double redisUserMicrosPerRequest() {
		return (this.requests == 0) ? 0 : (double) this.redisUserMicros / this.requests;
	}

	/** Returns the decisions per script call: above 1 for a client that batches, below 1 for several per decision. */
	public double decisionsPerScriptCall() {
		return (this.scriptCalls == 0) ? 0 : (double) this.requests / this.scriptCalls;
	}

	/**
	 * Returns this measurement with what was sampled around its run: the CPU time of the JVM, of Redis and of the
	 * client I/O threads, the script calls Redis executed, and the part of Redis's CPU spent in user space.
	 */
	public Measurement withSamples(long client, long redis, long io, long scriptCalls, long redisUser) {
		return new Measurement(this.requests, this.admitted, this.errors, this.elapsedNanos, this.latency, client,
				redis, this.callerCpuMicros, io, scriptCalls, redisUser);
	}

	/** Returns the sum of two measurements (counts and times add up, latencies merge). */
	public Measurement plus(Measurement other) {
		Histogram merged = this.latency.copy();
		merged.add(other.latency);
		return new Measurement(this.requests + other.requests, this.admitted + other.admitted,
				this.errors + other.errors, this.elapsedNanos + other.elapsedNanos, merged,
				this.clientCpuMicros + other.clientCpuMicros, this.redisCpuMicros + other.redisCpuMicros,
				this.callerCpuMicros + other.callerCpuMicros, this.ioCpuMicros + other.ioCpuMicros,
				this.scriptCalls + other.scriptCalls, this.redisUserMicros + other.redisUserMicros);
	}

}
