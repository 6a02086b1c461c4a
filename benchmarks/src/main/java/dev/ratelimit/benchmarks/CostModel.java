package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

import dev.ratelimit.benchmarks.contenders.Contender;
import dev.ratelimit.benchmarks.contenders.IdealClient;
import dev.ratelimit.benchmarks.contenders.IdealClusterClient;
import dev.ratelimit.benchmarks.contenders.OurClusterContender;
import dev.ratelimit.benchmarks.contenders.OurContender;
import dev.ratelimit.benchmarks.contenders.OurLocalSyncContender;
import dev.ratelimit.benchmarks.contenders.OurStarterDefault;
import dev.ratelimit.benchmarks.contenders.Requests;
import dev.ratelimit.benchmarks.load.LoadGenerator;
import dev.ratelimit.benchmarks.load.Measurement;
import dev.ratelimit.benchmarks.load.RedisProbe;
import dev.ratelimit.benchmarks.throughput.EntryResult;
import dev.ratelimit.benchmarks.throughput.Scenario;
import dev.ratelimit.benchmarks.throughput.ScenarioResult;
import dev.ratelimit.benchmarks.throughput.ThroughputBenchmark;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.test.redis.RedisBinary;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import org.jspecify.annotations.Nullable;

/**
 * The paper model of issue 34 ({@code benchmarks/run.sh model}): measures what one decision costs the application
 * (the benchmark JVM's CPU) and Redis (its process's CPU) on each path, in one run, then multiplies it out to the
 * Redis cores (Cluster shards) and application cores that 10^5, 10^6 and 10^7 decisions per second need. Paths: the
 * exact path (one and three rules), the deny cache on an abusive client (one hot key), the local-sync mode, and the
 * exact path on a Redis Cluster of three masters on this machine (keys spread over the shards). Writes
 * {@code docs/benchmarks-model.md}.
 */
final class CostModel {

	/** The share of a core one Redis master is planned to run at (its commands run on one thread). */
	static final double SHARD_BUSY = Double.parseDouble(System.getProperty("bench.shard.busy", "0.7"));

	private static final double[] RATES = { 1e5, 1e6, 1e7 };

	private CostModel() {
	}

	/** One measured path: its costs per decision. */
	record Cost(String name, String measuredAs, double perSecond, double jvmMicros, double redisMicros,
			double redisUserMicros, double decisionsPerCall) {

		static Cost of(String name, String measuredAs, EntryResult result) {
			Measurement total = result.total();
			return new Cost(name, measuredAs, result.perSecond(), total.clientMicrosPerRequest(),
					total.redisMicrosPerRequest(), total.redisUserMicrosPerRequest(), total.decisionsPerScriptCall());
		}

	}

	static void run(ThroughputBenchmark.Settings settings, Path docs, long start) throws IOException {
		String loadBefore = loadAverage();
		List<Cost> paths = new ArrayList<>();
		String redis;
		Latency twoLanesLatency;
		Latency oneLaneLatency;
		try (RedisServerProcess server = RedisServerProcess.start()) {
			RedisClient client = RedisClient.create(server.uri());
			List<Contender> contenders = new ArrayList<>();
			try (RedisProbe probe = new RedisProbe(client)) {
				redis = probe.version();
				OurContender ours = new OurContender(server.host(), server.port(), RedisBatching.DEFAULT);
				IdealClient idealClient = new IdealClient(client);
				OurStarterDefault starter = new OurStarterDefault(server.host(), server.port());
				OurLocalSyncContender local = new OurLocalSyncContender(server.host(), server.port());
				OurContender oneLane = OurContender.oneLane(server.host(), server.port());
				contenders.addAll(List.of(ours, idealClient, starter, local, oneLane));
				ThroughputBenchmark benchmark = new ThroughputBenchmark(probe, settings);
				ScenarioResult many = benchmark.run(scenario("many-keys"), List.of(ours, idealClient, local, oneLane));
				ScenarioResult three = benchmark.run(scenario("three-rules"), List.of(ours, idealClient));
				ScenarioResult hot = benchmark.run(scenario("hot-key"), List.of(ours, starter));
				paths.add(Cost.of("exact path, 1 rule", "ours, many-keys", entry(many, "ours")));
				paths.add(Cost.of("exact path, 3 rules", "ours, three-rules", entry(three, "ours")));
				paths.add(Cost.of("exact path, 1 rule (same rounds as 3 rules)", "ours-1-rule, three-rules",
						entry(three, Scenario.ONE_RULE_REFERENCE)));
				paths.add(Cost.of("deny cache, one abusive client", "ours-starter, hot-key", entry(hot, "ours-starter")));
				paths.add(Cost.of("exact path, one abusive client (no deny cache)", "ours, hot-key", entry(hot, "ours")));
				paths.add(Cost.of("local sync (`sync: local`)", "ours-local, many-keys", entry(many, "ours-local")));
				paths.add(Cost.of("ideal client, 1 rule (reference)", "ideal, many-keys", entry(many, "ideal")));
				paths.add(Cost.of("exact path, 1 rule, one lane (`ratelimit.redis.batch.lanes: 1`)",
						"ours-1-lane, many-keys", entry(many, "ours-1-lane")));
				paths.add(Cost.of("ideal client, 3 rules (reference)", "ideal, three-rules", entry(three, "ideal")));
				twoLanesLatency = Latency.of(entry(many, "ours").total());
				oneLaneLatency = Latency.of(entry(many, "ours-1-lane").total());
			}
			finally {
				contenders.forEach(Contender::close);
				client.shutdown();
			}
		}
		List<ClusterRow> cluster = cluster(settings);
		Duration total = Duration.ofSeconds(System.currentTimeMillis() / 1000
				- Long.parseLong(System.getProperty("bench.started", String.valueOf(start / 1000))));
		String report = markdown(Environment.describe(redis), loadBefore + " → " + loadAverage(), paths, cluster,
				oneLaneLatency, twoLanesLatency, total);
		Files.createDirectories(docs);
		Files.writeString(docs.resolve("benchmarks-model.md"), report, StandardCharsets.UTF_8);
		System.out.print(report);
		System.err.println("Wrote " + docs.resolve("benchmarks-model.md"));
	}

	/** A path's latency percentiles, in microseconds. */
	record Latency(double p50, double p99) {

		static Latency of(Measurement measurement) {
			return new Latency(measurement.latencyMicros(50), measurement.latencyMicros(99));
		}

	}

	/** The exact path on a Redis Cluster of three masters: one row over 10k keys, one over 8 subjects. */
	record ClusterRow(String scenario, double perSecond, double jvmMicros, double redisMicros, double redisUserMicros,
			double decisionsPerCall, List<Double> masterShares) {
	}

	private static List<ClusterRow> cluster(ThroughputBenchmark.Settings settings) {
		List<ClusterRow> rows = new ArrayList<>();
		try (RedisCluster cluster = RedisCluster.start(RedisBinary.locate(), 3, 0)) {
			List<RedisClient> clients = new ArrayList<>();
			List<RedisProbe> probes = new ArrayList<>();
			for (RedisServerProcess master : cluster.masters()) {
				RedisClient client = RedisClient.create(master.uri());
				clients.add(client);
				probes.add(new RedisProbe(client));
			}
			try (OurClusterContender ours = new OurClusterContender(cluster.endpoint());
					IdealClusterClient ideal = new IdealClusterClient(cluster.endpoint());
					OurClusterContender perSlot = new OurClusterContender(cluster.endpoint(), false)) {
				Scenario many = scenario("many-keys");
				for (int subjects : new int[] { 10_000, 8 }) {
					String[] names = new String[subjects];
					System.arraycopy(many.subjectNames(), 0, names, 0, subjects);
					// over 10k keys the ideal client's rounds alternate with ours: the same run's reference
					List<ClusterRun> runs = new ArrayList<>();
					runs.add(new ClusterRun((subjects == 10_000) ? "64 threads, 10k keys" : "64 threads, 8 subjects",
							ours.prepare(many.rules(), names), probes.size()));
					if (subjects == 10_000) {
						runs.add(new ClusterRun("ideal client, 64 threads, 10k keys (reference)",
								ideal.prepare(many.rules(), names), probes.size()));
						runs.add(new ClusterRun("64 threads, 10k keys, batches of one slot (`across-slots: false`)",
								perSlot.prepare(many.rules(), names), probes.size()));
					}
					for (ClusterRun run : runs) {
						LoadGenerator.run(run.requests(), many.threads(), subjects, settings.warmup(), 7);
					}
					for (int round = 0; round < settings.rounds(); round++) {
						for (ClusterRun run : runs) {
							run.round(probes, many.threads(), subjects, settings.round(), 100 + round);
						}
					}
					runs.forEach((run) -> rows.add(run.row()));
				}
			}
			finally {
				probes.forEach(RedisProbe::close);
				clients.forEach(RedisClient::shutdown);
			}
		}
		return rows;
	}

	/** The rounds of one contender on the Cluster: their measurements summed, and each master's CPU. */
	private static final class ClusterRun {

		private final String scenario;

		private final Requests requests;

		private final long[] masterCpu;

		private @Nullable Measurement sum;

		ClusterRun(String scenario, Requests requests, int masters) {
			this.scenario = scenario;
			this.requests = requests;
			this.masterCpu = new long[masters];
		}

		Requests requests() {
			return this.requests;
		}

		void round(List<RedisProbe> probes, int threads, int subjects, Duration length, long seed) {
			long[] cpuBefore = probes.stream().mapToLong(RedisProbe::cpuMicros).toArray();
			long callsBefore = probes.stream().mapToLong(RedisProbe::scriptCalls).sum();
			long userBefore = probes.stream().mapToLong(RedisProbe::userCpuMicros).sum();
			long jvmBefore = processCpuNanos();
			Measurement measured = LoadGenerator.run(this.requests, threads, subjects, length, seed);
			long jvm = (processCpuNanos() - jvmBefore) / 1_000;
			long redis = 0;
			for (int m = 0; m < probes.size(); m++) {
				long used = probes.get(m).cpuMicros() - cpuBefore[m];
				this.masterCpu[m] += used;
				redis += used;
			}
			long calls = probes.stream().mapToLong(RedisProbe::scriptCalls).sum() - callsBefore;
			long user = probes.stream().mapToLong(RedisProbe::userCpuMicros).sum() - userBefore;
			measured = measured.withSamples(jvm, redis, 0, calls, user);
			System.err.printf(Locale.ROOT, "cluster, %s: %,.0f/s, Redis %.1f us per decision, %.1f decisions per "
					+ "script call%n", this.scenario, measured.perSecond(), measured.redisMicrosPerRequest(),
					measured.decisionsPerScriptCall());
			this.sum = (this.sum != null) ? this.sum.plus(measured) : measured;
		}

		ClusterRow row() {
			Measurement total = Objects.requireNonNull(this.sum, "no round measured");
			long all = Arrays.stream(this.masterCpu).sum();
			List<Double> shares = new ArrayList<>();
			for (long used : this.masterCpu) {
				shares.add((all == 0) ? 0 : (double) used / all);
			}
			return new ClusterRow(this.scenario, total.perSecond(), total.clientMicrosPerRequest(),
					total.redisMicrosPerRequest(), total.redisUserMicrosPerRequest(), total.decisionsPerScriptCall(),
					shares);
		}

	}

	static String markdown(Environment environment, String load, List<Cost> paths, List<ClusterRow> cluster,
			Latency oneLane, Latency twoLanes, Duration total) {
		// the paths' order is run's: 0 exact, 1 three rules, 2 its one-rule reference, 6 ideal, 7 one lane
		Cost exact = paths.get(0);
		Cost ideal = paths.get(6);
		Cost lane = paths.get(7);
		Cost three = paths.get(1);
		Cost oneRule = paths.get(2);
		StringBuilder out = new StringBuilder();
		out.append("# Cost model: Redis and application cores per decision rate\n\n");
		out.append("<!-- Generated by benchmarks/run.sh model; do not edit: run it again. -->\n\n");
		out.append(String.format(Locale.ROOT, "Generated by `benchmarks/run.sh model` on %s (revision `%s`), in %d "
				+ "min %02d s on %s (%d cores, load average %s), Redis %s. Every number below comes from this one run: what a decision "
				+ "costs the benchmark JVM and Redis in CPU time, multiplied out. Options as for `benchmarks/run.sh "
				+ "throughput` (`--warmup`, `--seconds`, `--rounds`); `-Dbench.shard.busy` (default %.1f) is the "
				+ "share of a core one Redis master is planned to run at.%n%n", environment.date(),
				environment.revision(), total.toMinutes(), total.toSecondsPart(), environment.cpu(),
				environment.cores(), load, environment.redis(), SHARD_BUSY));
		out.append("## Measured per decision (this run)\n\n");
		out.append("*JVM* is the benchmark JVM's CPU per decision: the limiter, its Redis client and the load "
				+ "generator's own threads (64 blocked callers), so it bounds an application's cost per decision from "
				+ "above. *Redis* is the Redis process's CPU (`INFO cpu`: execution, networking, kernel); *of which "
				+ "user* is its part in user space (`used_cpu_user`: Redis's own code and Lua), the rest being the "
				+ "kernel's (the sockets, the wake-ups). The throughput itself depends on the machine's 2 cores being "
				+ "shared by all; the model uses only the CPU per decision.\n\n");
		out.append("| path | measured as (`run.sh throughput` contender, scenario) | decisions/s | JVM CPU µs/decision "
				+ "| Redis CPU µs/decision | of which user | decisions per script call |\n"
				+ "| --- | --- | ---: | ---: | ---: | ---: | ---: |\n");
		for (Cost path : paths) {
			out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", path.name(),
					path.measuredAs(), Format.count(path.perSecond()), Format.micros(path.jvmMicros()),
					Format.micros(path.redisMicros()), Format.micros(path.redisUserMicros()),
					(path.decisionsPerCall() == 0) ? "–" : Format.micros(path.decisionsPerCall())));
		}
		out.append(String.format(Locale.ROOT, "%nIssue 34's goals, same run: Redis CPU per decision of the exact "
				+ "path ÷ the ideal client's (64 threads, 10k keys): **%s** (goal ≤ 0.50x); three rules ÷ one rule "
				+ "in Redis CPU (the one-rule row measured in the same rounds): **%s** (goal ≤ 2.00x). The ideal client's Redis "
				+ "CPU per decision depends on how many of its calls arrive in one read (Lettuce pipelines more of "
				+ "them when the JVM is slow to flush, as on a loaded machine), so the first ratio moves with the "
				+ "load; `benchmarks/script-floor.sh` measures the scripts alone, without a JVM, and what bounds "
				+ "them (docs/profiling.md). The same two ratios in Redis's user-space CPU alone: **%s** (%s ÷ %s "
				+ "µs) and **%s** (%s ÷ %s µs). With one lane (`ratelimit.redis.batch.lanes: 1`), a call carries %s "
				+ "decisions instead of %s: Redis CPU per decision **%s** the ideal client's, at p50 %s µs and p99 "
				+ "%s µs against %s and %s µs with the default two lanes, and %s their throughput (same run; the "
				+ "load generator's 64 blocked callers, so waiting shows as latency).%n%n",
				Format.ratio(exact.redisMicros() / ideal.redisMicros()),
				Format.ratio(three.redisMicros() / oneRule.redisMicros()),
				Format.ratio(exact.redisUserMicros() / ideal.redisUserMicros()), Format.micros(exact.redisUserMicros()),
				Format.micros(ideal.redisUserMicros()), Format.ratio(three.redisUserMicros() / oneRule.redisUserMicros()),
				Format.micros(three.redisUserMicros()), Format.micros(oneRule.redisUserMicros()),
				Format.micros(lane.decisionsPerCall()), Format.micros(exact.decisionsPerCall()),
				Format.ratio(lane.redisMicros() / ideal.redisMicros()), Format.micros(oneLane.p50()),
				Format.micros(oneLane.p99()), Format.micros(twoLanes.p50()), Format.micros(twoLanes.p99()),
				Format.ratio(lane.perSecond() / exact.perSecond())));
		out.append("## Redis Cluster, three masters on this machine\n\n");
		out.append("The exact path (one rule) on a Redis Cluster of three masters without replicas, started by the "
				+ "benchmark on this machine (`RedisCluster` of ratelimit-test-support); Redis CPU is the three "
				+ "masters' together. A script call's declared keys must share one hash slot; natural batching forms "
				+ "its batches per master instead (`ratelimit.redis.batch.across-slots`, decision 140: `gcra.lua` with "
				+ "its keys undeclared, under the flag `allow-cross-slot-keys` of Redis 7), so a master's lanes carry "
				+ "the requests of all its slots. The row with `across-slots: false` batches per slot, as before "
				+ "decision 140: with 10k subjects spread over 16,384 slots, two requests rarely share a slot while a "
				+ "batch is open. The reference row is the ideal client on the same Cluster (`IdealClusterClient`: one "
				+ "call of the minimal script per decision, routed to its key's master). The three 10k-key rows' "
				+ "rounds alternate.\n\n");
		out.append("| scenario | decisions/s | JVM CPU µs/decision | Redis CPU µs/decision (all masters) | of which "
				+ "user | decisions per script call | masters' shares of Redis CPU |\n"
				+ "| --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
		for (ClusterRow row : cluster) {
			StringBuilder shares = new StringBuilder();
			for (double share : row.masterShares()) {
				shares.append(shares.isEmpty() ? "" : ", ").append(String.format(Locale.ROOT, "%.0f%%", share * 100));
			}
			out.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", row.scenario(),
					Format.count(row.perSecond()), Format.micros(row.jvmMicros()), Format.micros(row.redisMicros()),
					Format.micros(row.redisUserMicros()), Format.micros(row.decisionsPerCall()), shares));
		}
		if (cluster.size() > 2) {
			ClusterRow ours = cluster.get(0);
			ClusterRow reference = cluster.get(1);
			ClusterRow bySlot = cluster.get(2);
			out.append(String.format(Locale.ROOT, "%nOver 10k keys, Redis CPU per decision of the exact path ÷ the "
					+ "ideal client's on the same Cluster (their rounds alternating): **%s** (batches of one slot: "
					+ "%s), against **%s** on one Redis in this run; on one Redis a call carried %s decisions, here %s "
					+ "(%s with batches of one slot). Redis CPU per decision on the Cluster ÷ on one Redis: %s (what "
					+ "bounds it: [profiling.md](profiling.md#the-cluster)).%n",
					Format.ratio(ours.redisMicros() / reference.redisMicros()),
					Format.ratio(bySlot.redisMicros() / reference.redisMicros()),
					Format.ratio(exact.redisMicros() / ideal.redisMicros()), Format.micros(exact.decisionsPerCall()),
					Format.micros(ours.decisionsPerCall()), Format.micros(bySlot.decisionsPerCall()),
					Format.ratio(ours.redisMicros() / exact.redisMicros())));
		}
		out.append("\n## Cores per decision rate\n\n");
		out.append(String.format(Locale.ROOT, "Cores = decisions per second x CPU µs per decision ÷ 10^6, for cores "
				+ "like this machine's. *Shards* = Redis cores ÷ %.1f, rounded up (one master's commands run on one "
				+ "thread). The deny-cache row is the cost of an abusive client's requests (what the cache answers "
				+ "from memory); the rest of the traffic costs the exact path's. The local-sync row holds while each "
				+ "key's flushes stay within its sync settings (every 100 ms, or at 100 units of a key).%n%n",
				SHARD_BUSY));
		out.append("| path | Redis µs | app µs |");
		for (double rate : RATES) {
			out.append(String.format(Locale.ROOT, " 10^%d/s: Redis cores (shards) | app cores |",
					Math.round(Math.log10(rate))));
		}
		out.append("\n| --- | ---: | ---: |");
		for (int i = 0; i < RATES.length; i++) {
			out.append(" ---: | ---: |");
		}
		out.append('\n');
		List<Cost> modelled = new ArrayList<>(paths.subList(0, 2));
		modelled.add(paths.get(7));
		modelled.add(paths.get(3));
		modelled.add(paths.get(5));
		if (!cluster.isEmpty()) {
			ClusterRow row = cluster.get(0);
			modelled.add(new Cost("exact path on a Redis Cluster, 1 rule", "", row.perSecond(), row.jvmMicros(),
					row.redisMicros(), row.redisUserMicros(), row.decisionsPerCall()));
		}
		modelled.add(paths.get(6));
		for (Cost path : modelled) {
			out.append(String.format(Locale.ROOT, "| %s | %s | %s |", path.name(), Format.micros(path.redisMicros()),
					Format.micros(path.jvmMicros())));
			for (double rate : RATES) {
				double redisCores = rate * path.redisMicros() / 1e6;
				double appCores = rate * path.jvmMicros() / 1e6;
				out.append(String.format(Locale.ROOT, " %s (%d) | %s |", cores(redisCores),
						(long) Math.max(1, Math.ceil(redisCores / SHARD_BUSY)), cores(appCores)));
			}
			out.append('\n');
		}
		out.append("\nRegenerate: `benchmarks/run.sh model` (about 3 minutes; writes this page).\n");
		return out.toString();
	}

	/** The machine's load average over the last minute, or {@code ?} where {@code /proc/loadavg} is missing. */
	private static String loadAverage() {
		try {
			return Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
		}
		catch (IOException | RuntimeException ex) {
			return "?";
		}
	}

	private static String cores(double cores) {
		return (cores < 10) ? String.format(Locale.ROOT, "%.2f", cores) : String.format(Locale.ROOT, "%.0f", cores);
	}

	private static EntryResult entry(ScenarioResult result, String id) {
		return result.entries()
			.stream()
			.filter((entry) -> entry.entry().id().equals(id))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No " + id + " in " + result.scenario().id()));
	}

	private static Scenario scenario(String id) {
		return Scenario.all()
			.stream()
			.filter((scenario) -> scenario.id().equals(id))
			.findFirst()
			.orElseThrow();
	}

	private static long processCpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

}
