package dev.ratelimit.benchmarks.http;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.benchmarks.load.RedisProbe;
import org.HdrHistogram.Histogram;

/**
 * Measures sample instances one after another with one request in flight (a closed loop on one keep-alive
 * connection): first a warm-up of every instance (not recorded, so that the JIT has compiled the paths measured),
 * then rounds in which every instance runs once, in an order that rotates each round, so that all see the same
 * machine state and no instance always runs right after another. Besides latency it samples the CPU time of each
 * server process and of Redis ({@code INFO cpu}) per round.
 *
 * @param warmup how long each instance is warmed up
 * @param round how long each instance runs in each round
 * @param rounds how many rounds
 * @param path the request path
 */
record MeasurementRounds(Duration warmup, Duration round, int rounds, String path) {

	/**
	 * Waits for every instance, warms them up, runs the rounds.
	 * @param apps the instances
	 * @param probe the side connection to their Redis
	 * @return what was measured, one tally per instance in the order given
	 */
	List<Tally> run(List<SampleApp> apps, RedisProbe probe) throws IOException, InterruptedException {
		for (SampleApp app : apps) {
			app.awaitReady(this.path);
		}
		List<Instance> instances = apps.stream().map((app) -> new Instance(app, this.path)).toList();
		for (Instance instance : instances) {
			instance.run(this.warmup, probe);
		}
		for (int round = 0; round < this.rounds; round++) {
			for (int i = 0; i < instances.size(); i++) {
				// rotate the order so that no instance always runs right after another
				Instance instance = instances.get((i + round) % instances.size());
				instance.tally.round(instance.run(this.round, probe));
			}
		}
		return instances.stream().map((instance) -> instance.tally).toList();
	}

	/** One sample instance, the path the client requests and what was recorded. */
	private static final class Instance {

		private final SampleApp app;

		private final String path;

		private final Tally tally;

		Instance(SampleApp app, String path) {
			this.app = app;
			this.path = path;
			this.tally = new Tally(app.setup().label());
		}

		/**
		 * Sends requests one after another on one keep-alive connection for a while and returns what they took. The
		 * connection is opened for the run, and its first request is not counted: Tomcat closes a keep-alive
		 * connection that has been idle for a minute, as a connection would be while the other instances warm up.
		 */
		Tally.Round run(Duration duration, RedisProbe probe) throws IOException {
			try (KeepAliveConnection connection = new KeepAliveConnection(this.app.port(), this.path)) {
				connection.get();
				long serverCpu = this.app.cpuMicros();
				long redisCpu = probe.cpuMicros();
				Histogram latencies = Tally.newHistogram();
				long start = System.nanoTime();
				long end = start + duration.toNanos();
				long count = 0;
				long now = start;
				while (now < end) {
					connection.get();
					long done = System.nanoTime();
					latencies.recordValue(Math.max(1, (done - now) / 1_000));
					count++;
					now = done;
				}
				long serverCpuAfter = this.app.cpuMicros();
				return new Tally.Round(latencies, count, now - start,
						(serverCpu < 0 || serverCpuAfter < 0) ? -1 : serverCpuAfter - serverCpu,
						probe.cpuMicros() - redisCpu);
			}
		}

	}

}
