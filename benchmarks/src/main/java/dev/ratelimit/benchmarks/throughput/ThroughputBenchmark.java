package dev.ratelimit.benchmarks.throughput;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.ratelimit.benchmarks.contenders.Contender;
import dev.ratelimit.benchmarks.contenders.Requests;
import dev.ratelimit.benchmarks.load.LoadGenerator;
import dev.ratelimit.benchmarks.load.Measurement;
import dev.ratelimit.benchmarks.load.RedisProbe;

/**
 * Measures decisions per second and latency of every contender in every scenario, on one Redis.
 * <p>
 * Per scenario: {@code FLUSHALL}; every entry prepares its keys and configuration; every entry is warmed up for
 * {@link Settings#warmup()} (not measured); then {@link Settings#rounds()} rounds, each measuring every entry for
 * {@link Settings#round()} in a rotating order, so that background noise (other processes on the machine) is spread
 * evenly over the entries rather than landing on whichever ran last. An entry's result keeps every round (see
 * {@link EntryResult}).
 */
public final class ThroughputBenchmark {

	private final RedisProbe probe;

	private final Settings settings;

	/** The CPU the busiest client I/O thread used in the last round, in cores (logged, not reported). */
	private double busiestIoCores;

	/**
	 * @param probe the side connection to the benchmark's Redis
	 * @param settings the durations
	 */
	public ThroughputBenchmark(RedisProbe probe, Settings settings) {
		this.probe = probe;
		this.settings = settings;
	}

	/** Runs one scenario with the given contenders. */
	public ScenarioResult run(Scenario scenario, List<Contender> contenders) {
		this.probe.flushAll();
		String[] subjects = scenario.subjectNames();
		List<Scenario.Entry> entries = scenario.entries(contenders);
		List<Requests> requests = new ArrayList<>();
		for (Scenario.Entry entry : entries) {
			requests.add(entry.contender().prepare(entry.rules(), subjects));
		}
		for (int i = 0; i < entries.size(); i++) {
			Measurement warmup = LoadGenerator.run(requests.get(i), scenario.threads(), scenario.subjects(),
					this.settings.warmup(), i);
			log("%s: %s warm-up %,.0f/s%n", scenario.id(), entries.get(i).id(), warmup.perSecond());
		}
		Measurement[] totals = new Measurement[entries.size()];
		List<List<Double>> rates = new ArrayList<>();
		entries.forEach((entry) -> rates.add(new ArrayList<>()));
		for (int round = 0; round < this.settings.rounds(); round++) {
			for (int k = 0; k < entries.size(); k++) {
				int i = (k + round) % entries.size();
				Measurement measured = measure(requests.get(i), scenario, 1_000L * (round + 1) + i);
				totals[i] = (totals[i] != null) ? totals[i].plus(measured) : measured;
				rates.get(i).add(measured.perSecond());
				log("%s: %s round %d %,.0f/s, p50 %.0f us, p99 %.0f us, JVM %.2f cores (busiest client I/O thread "
						+ "%.2f), Redis %.2f cores, %.1f decisions per script call; CPU us per decision: callers "
						+ "%.1f, client I/O %.1f, rest of the JVM %.1f, Redis %.1f%s%n", scenario.id(),
						entries.get(i).id(), round + 1, measured.perSecond(), measured.latencyMicros(50),
						measured.latencyMicros(99), measured.clientCores(), this.busiestIoCores,
						measured.redisCores(), measured.decisionsPerScriptCall(), measured.callerMicrosPerRequest(),
						measured.ioMicrosPerRequest(), measured.clientMicrosPerRequest()
								- measured.callerMicrosPerRequest() - measured.ioMicrosPerRequest(),
						measured.redisMicrosPerRequest(),
						(measured.errors() > 0) ? ", " + measured.errors() + " ERRORS" : "");
			}
		}
		List<EntryResult> results = new ArrayList<>();
		for (int i = 0; i < entries.size(); i++) {
			results.add(new EntryResult(entries.get(i), totals[i], List.copyOf(rates.get(i))));
		}
		return new ScenarioResult(scenario, results);
	}

	private Measurement measure(Requests requests, Scenario scenario, long seed) {
		Map<Thread, Long> ioBefore = ioThreadCpuNanos();
		long redisBefore = this.probe.cpuMicros();
		long callsBefore = this.probe.scriptCalls();
		long userBefore = this.probe.userCpuMicros();
		long clientBefore = processCpuNanos();
		Measurement measured = LoadGenerator.run(requests, scenario.threads(), scenario.subjects(),
				this.settings.round(), seed);
		long clientMicros = (processCpuNanos() - clientBefore) / 1_000;
		long redisMicros = this.probe.cpuMicros() - redisBefore;
		long busiest = 0;
		long io = 0;
		for (Map.Entry<Thread, Long> after : ioThreadCpuNanos().entrySet()) {
			long used = after.getValue() - ioBefore.getOrDefault(after.getKey(), 0L);
			busiest = Math.max(busiest, used);
			io += used;
		}
		this.busiestIoCores = (double) busiest / measured.elapsedNanos();
		return measured.withSamples(clientMicros, redisMicros, io / 1_000, this.probe.scriptCalls() - callsBefore,
				this.probe.userCpuMicros() - userBefore);
	}

	/**
	 * Returns the CPU time of each client I/O thread (Netty event loops: Lettuce's and Redisson's), for the log: a
	 * busiest thread near 1.00 core is a serial bound of its own.
	 */
	private static Map<Thread, Long> ioThreadCpuNanos() {
		ThreadMXBean threads = ManagementFactory.getThreadMXBean();
		Map<Thread, Long> cpu = new HashMap<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			if (thread.getName().startsWith("lettuce-") || thread.getName().startsWith("redisson-netty")) {
				cpu.put(thread, threads.getThreadCpuTime(thread.getId()));
			}
		}
		return cpu;
	}

	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

	private static void log(String format, Object... args) {
		System.err.printf(Locale.ROOT, format, args);
	}

	/**
	 * How long to run.
	 *
	 * @param warmup unmeasured run of each entry before the rounds
	 * @param round duration of each measured run
	 * @param rounds measured runs per entry
	 */
	public record Settings(Duration warmup, Duration round, int rounds) {
	}

}
