package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import dev.ratelimit.benchmarks.contenders.Bucket4jLettuceCas;
import dev.ratelimit.benchmarks.contenders.Bucket4jLettuceDelaying;
import dev.ratelimit.benchmarks.contenders.Contender;
import dev.ratelimit.benchmarks.contenders.IdealClient;
import dev.ratelimit.benchmarks.contenders.OurAlgorithmContender;
import dev.ratelimit.benchmarks.contenders.OurConcurrencyContender;
import dev.ratelimit.benchmarks.contenders.OurContender;
import dev.ratelimit.benchmarks.contenders.OurLocalSyncContender;
import dev.ratelimit.benchmarks.contenders.OurScriptBare;
import dev.ratelimit.benchmarks.contenders.OurStarterDefault;
import dev.ratelimit.benchmarks.contenders.RedissonRateLimiter;
import dev.ratelimit.benchmarks.contenders.SpringCloudGatewayScript;
import dev.ratelimit.benchmarks.load.RedisProbe;
import dev.ratelimit.benchmarks.throughput.Scenario;
import dev.ratelimit.benchmarks.throughput.ScenarioResult;
import dev.ratelimit.benchmarks.throughput.ThroughputBenchmark;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;

/**
 * The benchmarks' command line (see {@code benchmarks/run.sh}).
 * <pre>
 * all [options]                     everything; rewrites docs/benchmarks.md and docs/benchmarks-throughput.svg
 * throughput [scenario...] [options] decisions per second and latency; prints the tables
 * ceiling                           redis-benchmark against the minimal script and this project's; prints the table
 * memory                            Redis memory per key; prints the table
 * concurrency [options]             a concurrency rule (acquire + release) against a rate rule; prints the tables
 * model [options]                   cores per 10^5..10^7 decisions/s from this run's costs; writes docs/benchmarks-model.md
 *
 * options: --contenders=ours,ours-unbatched,ours-1-lane,ours-async,ours-local,ours-starter,ours-script,ideal,ideal-pipelined,ideal-async,bucket4j,bucket4j-delaying,redisson,scg,ours-<rate algorithm>  --warmup=2  --seconds=2  --rounds=5  --docs=DIR
 * </pre>
 */
public final class Benchmarks {

	private static final List<String> CONTENDERS = List.of("ours", "ours-unbatched", "ours-async", "ours-local",
			"ours-starter", "ours-script", "ideal", "ideal-pipelined", "ideal-async", "bucket4j", "bucket4j-delaying",
			"redisson", "scg");

	private Benchmarks() {
	}

	public static void main(String[] args) throws IOException {
		long start = System.nanoTime();
		List<String> positional = new ArrayList<>();
		Map<String, String> options = new LinkedHashMap<>();
		for (String arg : args) {
			if (arg.startsWith("--")) {
				int eq = arg.indexOf('=');
				options.put(arg.substring(2, (eq < 0) ? arg.length() : eq), (eq < 0) ? "" : arg.substring(eq + 1));
			}
			else {
				positional.add(arg);
			}
		}
		String command = positional.isEmpty() ? "all" : positional.remove(0);
		ThroughputBenchmark.Settings settings = new ThroughputBenchmark.Settings(
				Duration.ofSeconds(Long.parseLong(options.getOrDefault("warmup", "2"))),
				Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "2"))),
				Integer.parseInt(options.getOrDefault("rounds", "5")));
		List<String> contenders = Arrays.asList(options.getOrDefault("contenders", String.join(",", CONTENDERS))
			.split(","));
		switch (command) {
			case "memory" -> System.out.print(MemoryPerKey.measure().markdown());
			case "ceiling" -> {
				try (RedisServerProcess server = RedisServerProcess.start()) {
					RedisClient client = RedisClient.create(server.uri());
					try (RedisProbe probe = new RedisProbe(client)) {
						System.out.print(Report.ceilingSection(ceiling(server, probe, settings)));
					}
					finally {
						client.shutdown();
					}
				}
			}
			case "throughput" -> {
				List<Scenario> scenarios = scenarios(positional);
				try (RedisServerProcess server = RedisServerProcess.start()) {
					RedisClient client = RedisClient.create(server.uri());
					try (RedisProbe probe = new RedisProbe(client)) {
						for (ScenarioResult result : throughput(server, client, probe, scenarios, contenders, settings)) {
							System.out.print(Report.scenarioSection(result));
						}
					}
					finally {
						client.shutdown();
					}
				}
			}
			case "concurrency" -> {
				try (RedisServerProcess server = RedisServerProcess.start()) {
					RedisClient client = RedisClient.create(server.uri());
					try (RedisProbe probe = new RedisProbe(client)) {
						System.out.print(Report.concurrencySection(concurrency(server, client, probe, settings)));
					}
					finally {
						client.shutdown();
					}
				}
			}
			case "all" -> all(settings, contenders, Path.of(options.getOrDefault("docs", "docs")), start);
			case "model" -> CostModel.run(new ThroughputBenchmark.Settings(
					Duration.ofSeconds(Long.parseLong(options.getOrDefault("warmup", "2"))),
					Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "2"))),
					Integer.parseInt(options.getOrDefault("rounds", "3"))), Path.of(options.getOrDefault("docs", "docs")),
					start);
			default -> {
				System.err.println("Unknown command " + command + "; use all, throughput, ceiling, memory, concurrency or model");
				System.exit(2);
			}
		}
		System.exit(0);
	}

	private static void all(ThroughputBenchmark.Settings settings, List<String> contenders, Path docs, long start)
			throws IOException {
		List<ScenarioResult> throughput;
		List<ScenarioResult> concurrency;
		List<RedisCeiling.Row> ceiling;
		String redis;
		try (RedisServerProcess server = RedisServerProcess.start()) {
			RedisClient client = RedisClient.create(server.uri());
			try (RedisProbe probe = new RedisProbe(client)) {
				redis = probe.version() + " (" + server.binary().source().toString().toLowerCase() + ": "
						+ server.binary().executable() + ")";
				throughput = throughput(server, client, probe, Scenario.all(), contenders, settings);
				concurrency = concurrency(server, client, probe, settings);
				ceiling = ceiling(server, probe, settings);
			}
			finally {
				client.shutdown();
			}
		}
		MemoryPerKey.Result memory = MemoryPerKey.measure();
		Duration total = Duration.ofNanos(System.nanoTime() - start);
		String started = System.getProperty("bench.started");
		if (started != null) {
			// run.sh's start, so that the total includes the build
			total = Duration.ofSeconds(System.currentTimeMillis() / 1000 - Long.parseLong(started));
		}
		String report = Report.markdown(Environment.describe(redis), settings, throughput, concurrency, ceiling,
				memory, total);
		Files.createDirectories(docs);
		Files.writeString(docs.resolve("benchmarks.md"), report, StandardCharsets.UTF_8);
		Files.writeString(docs.resolve(Report.CHART), ThroughputChart.svg(throughput), StandardCharsets.UTF_8);
		System.out.print(report);
		System.err.println("Wrote " + docs.resolve("benchmarks.md") + " and " + docs.resolve(Report.CHART) + " in "
				+ total.toSeconds() + " s");
	}

	private static List<ScenarioResult> throughput(RedisServerProcess server, RedisClient client, RedisProbe probe,
			List<Scenario> scenarios, List<String> ids, ThroughputBenchmark.Settings settings) {
		List<Contender> contenders = new ArrayList<>();
		try {
			for (String id : ids) {
				contenders.add(switch (id) {
					case "ours" -> new OurContender(server.host(), server.port(), batching());
					case "ours-unbatched" -> new OurContender(server.host(), server.port(), RedisBatching.OFF);
					case "ours-1-lane" -> OurContender.oneLane(server.host(), server.port());
					case "ours-async" -> new OurContender(server.host(), server.port(), batching(), true);
					case "ours-starter" -> new OurStarterDefault(server.host(), server.port());
					case "ours-local" -> new OurLocalSyncContender(server.host(), server.port());
					case "ours-concurrency" -> new OurConcurrencyContender(server.host(), server.port(), false);
					case "ours-rate-concurrency" -> new OurConcurrencyContender(server.host(), server.port(), true);
					case "ours-script" -> new OurScriptBare(client);
					case "ideal" -> new IdealClient(client);
					case "ideal-pipelined" -> new IdealClient(client, true);
					case "ideal-async" -> IdealClient.async(client);
					case "bucket4j" -> new Bucket4jLettuceCas(client);
					case "bucket4j-delaying" -> new Bucket4jLettuceDelaying(client);
					case "redisson" -> new RedissonRateLimiter(server.host(), server.port());
					case "scg" -> new SpringCloudGatewayScript(client);
					default -> OurAlgorithmContender.ALGORITHMS.stream()
						.filter((algorithm) -> OurAlgorithmContender.id(algorithm).equals(id))
						.findFirst()
						.map((algorithm) -> (Contender) new OurAlgorithmContender(server.host(), server.port(), algorithm))
						.orElseThrow(() -> new IllegalArgumentException("Unknown contender " + id + "; known: "
								+ CONTENDERS + ", ours-1-lane, ours-<rate algorithm>"));
				});
			}
			ThroughputBenchmark benchmark = new ThroughputBenchmark(probe, settings);
			List<ScenarioResult> results = new ArrayList<>();
			for (Scenario scenario : scenarios) {
				results.add(benchmark.run(scenario, contenders));
			}
			return results;
		}
		finally {
			contenders.forEach(Contender::close);
		}
	}

	/**
	 * Returns the batching of this project's limiter: the default, or lanes and limits from the system properties
	 * {@code bench.batch.lanes}, {@code bench.batch.max-requests} and {@code bench.batch.max-checks} (to choose the
	 * defaults by measurement, e.g. {@code JAVA_OPTS=-Dbench.batch.lanes=1}).
	 */
	private static RedisBatching batching() {
		RedisBatching defaults = RedisBatching.DEFAULT;
		return new RedisBatching(true, Integer.getInteger("bench.batch.lanes", defaults.lanes()),
				Integer.getInteger("bench.batch.max-requests", defaults.maxRequests()),
				Integer.getInteger("bench.batch.max-checks", defaults.maxChecks()));
	}

	/** Runs the scenarios of a concurrency rule against a rate rule, with this project's limiter only. */
	private static List<ScenarioResult> concurrency(RedisServerProcess server, RedisClient client, RedisProbe probe,
			ThroughputBenchmark.Settings settings) {
		return throughput(server, client, probe, Scenario.concurrency(),
				List.of("ours", "ours-concurrency", "ours-rate-concurrency"), settings);
	}

	private static List<RedisCeiling.Row> ceiling(RedisServerProcess server, RedisProbe probe,
			ThroughputBenchmark.Settings settings) {
		Path executable;
		try {
			executable = RedisCeiling.locate(server.binary().executable());
		}
		catch (IllegalStateException ex) {
			System.err.println(ex.getMessage() + "; skipping the Redis ceiling");
			return List.of();
		}
		return new RedisCeiling(server.host(), server.port(), probe, 8).run(executable);
	}

	private static List<Scenario> scenarios(List<String> ids) {
		if (ids.isEmpty()) {
			return Scenario.all();
		}
		Set<String> known = Scenario.all().stream().map(Scenario::id).collect(Collectors.toSet());
		for (String id : ids) {
			if (!known.contains(id)) {
				throw new IllegalArgumentException("Unknown scenario " + id + "; known: " + known);
			}
		}
		return Scenario.all().stream().filter((scenario) -> ids.contains(scenario.id())).toList();
	}

}
