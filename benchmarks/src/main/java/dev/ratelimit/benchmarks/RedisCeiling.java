package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.benchmarks.contenders.Scripts;
import dev.ratelimit.benchmarks.load.RedisProbe;

/**
 * The Redis ceiling: {@code redis-benchmark} (C, no JVM) sending {@code EVALSHA} of a rate-limiting script from 64
 * connections over 10,000 keys, without and with pipelining (16 commands in flight per connection). The minimal GCRA
 * script bounds what any one-script limiter can get from this Redis; this project's scripts ({@code gcra.lua}, the
 * fast path its store runs for GCRA, and the general {@code ratelimit.lua}) with one GCRA check show what they cost
 * Redis. Redis's own {@code usec_per_call} is the execution time of one call without networking.
 * <p>
 * Each script runs {@value #ROUNDS} times per pipeline setting, in a rotating order; a row reports the median run, and
 * its time per call relative to the minimal script is the median of the ratios within each round (measured seconds
 * apart), which moves far less with other load on the machine than either time alone.
 */
public final class RedisCeiling {

	/** Connections, as the 64 threads of the throughput benchmark. */
	public static final int CONNECTIONS = 64;

	/** Commands in flight per connection when pipelining. */
	public static final int PIPELINE = 16;

	private static final int KEYS = 10_000;

	/** Measured runs per script and pipeline setting; a row reports the median run. */
	public static final int ROUNDS = 5;

	private final String host;

	private final int port;

	private final RedisProbe probe;

	private final double seconds;

	/**
	 * @param host the Redis host
	 * @param port the Redis port
	 * @param probe the side connection to that Redis
	 * @param seconds the approximate duration of the measured runs of one script and pipeline setting together
	 */
	public RedisCeiling(String host, int port, RedisProbe probe, double seconds) {
		this.host = host;
		this.port = port;
		this.probe = probe;
		this.seconds = seconds;
	}

	/** Returns the {@code redis-benchmark} executable: on the PATH, else next to the given {@code redis-server}. */
	public static Path locate(Path redisServer) {
		for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(dir, "redis-benchmark");
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		Path sibling = redisServer.resolveSibling("redis-benchmark");
		if (Files.isExecutable(sibling)) {
			return sibling;
		}
		throw new IllegalStateException("redis-benchmark is neither on the PATH nor next to " + redisServer);
	}

	/** Measures both scripts with and without pipelining. */
	public List<Row> run(Path redisBenchmark) {
		String minimal = this.probe.scriptLoad(Scripts.load(Scripts.MINIMAL_GCRA));
		List<Script> scripts = new ArrayList<>();
		scripts.add(new Script("minimal GCRA (gcra-minimal.lua)", List.of("EVALSHA", minimal, "1",
				"ideal:{api:__rand_int__}", "1", "1000000")));
		List<String> ours = Scripts.ourGcraScript().equals(Scripts.RATELIMIT) ? List.of(Scripts.RATELIMIT)
				: List.of(Scripts.RATELIMIT_GCRA, Scripts.RATELIMIT);
		for (String location : ours) {
			String sha = this.probe.scriptLoad(Scripts.load(location));
			// gcra.lua's compact layout (decision 136; -1: one spec, the keys distinct, decision 137), or ratelimit.lua's
			List<String> args = location.equals(Scripts.RATELIMIT_GCRA)
					? List.of("", "-1", "1", "1", "1000000", "1", "0", "1")
					: List.of("", "", "6", "1", "1000000", "0", "1", "0", "0");
			List<String> command = new ArrayList<>(List.of("EVALSHA", sha, "1", "rl:{api:__rand_int__}"));
			command.addAll(args);
			scripts.add(new Script(Scripts.fileName(location) + ", 1 GCRA check", command));
		}
		List<Row> rows = new ArrayList<>();
		for (int pipeline : new int[] { 1, PIPELINE }) {
			long[] requests = new long[scripts.size()];
			List<List<Csv>> runs = new ArrayList<>();
			List<List<Double>> micros = new ArrayList<>();
			for (int i = 0; i < scripts.size(); i++) {
				this.probe.flushAll();
				Csv estimate = benchmark(redisBenchmark, scripts.get(i), pipeline, (pipeline == 1) ? 20_000 : 100_000);
				requests[i] = Math.max(50_000,
						Math.min(20_000_000, Math.round(estimate.rps() * this.seconds / ROUNDS)));
				runs.add(new ArrayList<>());
				micros.add(new ArrayList<>());
			}
			for (int round = 0; round < ROUNDS; round++) {
				for (int k = 0; k < scripts.size(); k++) {
					// rotate the order, as the throughput benchmark does, so that noise is spread over the scripts
					int i = (k + round) % scripts.size();
					this.probe.flushAll();
					this.probe.resetStats();
					runs.get(i).add(benchmark(redisBenchmark, scripts.get(i), pipeline, requests[i]));
					micros.get(i).add(this.probe.microsPerCall("evalsha"));
				}
			}
			for (int i = 0; i < scripts.size(); i++) {
				List<Csv> measured = runs.get(i);
				List<Double> ratios = new ArrayList<>();
				for (int round = 0; round < ROUNDS; round++) {
					ratios.add(micros.get(i).get(round) / micros.get(0).get(round));
				}
				Row row = new Row(scripts.get(i).name(), pipeline, requests[i],
						median(measured.stream().map(Csv::rps).toList()),
						median(measured.stream().map(Csv::p50Millis).toList()),
						median(measured.stream().map(Csv::p99Millis).toList()), median(micros.get(i)), median(ratios),
						command(scripts.get(i), pipeline, requests[i], true));
				rows.add(row);
				System.err.printf(Locale.ROOT, "ceiling: %s -P %d: %,.0f/s, Redis %.2f us per call (%.2fx minimal)%n",
						row.script(), pipeline, row.perSecond(), row.redisMicrosPerCall(), row.relativeToMinimal());
			}
		}
		return rows;
	}

	private static double median(List<Double> values) {
		double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

	private Csv benchmark(Path executable, Script script, int pipeline, long requests) {
		List<String> command = new ArrayList<>();
		command.add(executable.toString());
		command.addAll(List.of("-h", this.host, "-p", String.valueOf(this.port)));
		command.addAll(command(script, pipeline, requests, false));
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (process.waitFor() != 0) {
				throw new IllegalStateException("redis-benchmark failed: " + output);
			}
			for (String line : output.split("\r?\n")) {
				if (line.startsWith("\"EVALSHA")) {
					String[] fields = line.split("\",\"");
					return new Csv(Double.parseDouble(fields[1]), Double.parseDouble(fields[4]),
							Double.parseDouble(fields[6]));
				}
			}
			throw new IllegalStateException("No result in redis-benchmark's output: " + output);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** Returns the arguments after host and port; {@code display} quotes them for a shell. */
	private static List<String> command(Script script, int pipeline, long requests, boolean display) {
		List<String> args = new ArrayList<>(List.of("-c", String.valueOf(CONNECTIONS), "-n", String.valueOf(requests),
				"-r", String.valueOf(KEYS)));
		if (pipeline > 1) {
			args.addAll(List.of("-P", String.valueOf(pipeline)));
		}
		args.add("--csv");
		for (String arg : script.command()) {
			args.add((display && (arg.isEmpty() || arg.contains("{"))) ? "'" + arg + "'" : arg);
		}
		return args;
	}

	private record Script(String name, List<String> command) {
	}

	private record Csv(double rps, double p50Millis, double p99Millis) {
	}

	/**
	 * One redis-benchmark run.
	 *
	 * @param script which script
	 * @param pipeline commands in flight per connection
	 * @param requests requests sent
	 * @param perSecond script calls per second
	 * @param p50Millis median latency seen by redis-benchmark, in milliseconds
	 * @param p99Millis 99th percentile latency, in milliseconds
	 * @param redisMicrosPerCall Redis's execution time of one call ({@code usec_per_call}), in microseconds
	 * @param relativeToMinimal the median, over the rounds, of this script's time per call divided by the minimal
	 * script's in the same round
	 * @param arguments the redis-benchmark arguments after {@code -h} and {@code -p}, quoted for a shell
	 */
	public record Row(String script, int pipeline, long requests, double perSecond, double p50Millis,
			double p99Millis, double redisMicrosPerCall, double relativeToMinimal, List<String> arguments) {

		/** Returns the command line that reproduces this row, given the script's SHA is loaded. */
		public String commandLine() {
			return "redis-benchmark -p <port> " + String.join(" ", this.arguments);
		}

	}

}
