package dev.ratelimit.benchmarks.load;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A side connection to the benchmark's Redis: flushes it between scenarios and reads the CPU time of the Redis
 * process ({@code used_cpu_user + used_cpu_sys} of {@code INFO cpu}), which shows how much Redis work one decision
 * costs and whether a run was bound by Redis (one core busy) or by the client.
 */
public final class RedisProbe implements AutoCloseable {

	private final StatefulRedisConnection<String, String> connection;

	private final RedisCommands<String, String> redis;

	public RedisProbe(RedisClient client) {
		this.connection = client.connect();
		this.redis = this.connection.sync();
	}

	/** Deletes every key. */
	public void flushAll() {
		this.redis.flushall();
	}

	/** Returns the server version, e.g. {@code 7.0.15}. */
	public String version() {
		return field(this.redis.info("server"), "redis_version");
	}

	/** Returns the CPU time (user and system) the Redis process has used so far, in microseconds. */
	public long cpuMicros() {
		String cpu = this.redis.info("cpu");
		double seconds = Double.parseDouble(field(cpu, "used_cpu_user")) + Double.parseDouble(field(cpu, "used_cpu_sys"));
		return Math.round(seconds * 1e6);
	}

	/**
	 * Returns the part of {@link #cpuMicros()} spent in user space ({@code used_cpu_user}: Redis's own code and Lua),
	 * in microseconds; the rest is the kernel's (the sockets, the wake-ups).
	 */
	public long userCpuMicros() {
		return Math.round(Double.parseDouble(field(this.redis.info("cpu"), "used_cpu_user")) * 1e6);
	}

	/** Resets the command statistics ({@code CONFIG RESETSTAT}). */
	public void resetStats() {
		this.redis.configResetstat();
	}

	/**
	 * Returns the average microseconds Redis spent executing one call of a command since {@link #resetStats()}
	 * ({@code usec_per_call} of {@code INFO commandstats}: execution only, without reading and writing the socket).
	 */
	public double microsPerCall(String command) {
		String stats = this.redis.info("commandstats");
		String line = field(stats, "cmdstat_" + command);
		for (String pair : line.split(",")) {
			if (pair.startsWith("usec_per_call=")) {
				return Double.parseDouble(pair.substring("usec_per_call=".length()));
			}
		}
		throw new IllegalStateException("No usec_per_call for " + command);
	}

	/**
	 * Returns how many script calls ({@code EVALSHA} and {@code EVAL}) Redis has executed since start or the last
	 * {@link #resetStats()}: against the decisions made meanwhile, the average number of decisions per call.
	 */
	public long scriptCalls() {
		String stats = this.redis.info("commandstats");
		long calls = 0;
		for (String command : new String[] { "evalsha", "eval" }) {
			for (String line : stats.split("\r?\n")) {
				if (line.startsWith("cmdstat_" + command + ":calls=")) {
					String rest = line.substring(("cmdstat_" + command + ":calls=").length());
					calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
				}
			}
		}
		return calls;
	}

	/** Loads a script and returns its SHA-1. */
	public String scriptLoad(byte[] script) {
		return this.redis.scriptLoad(script);
	}

	private static String field(String info, String name) {
		for (String line : info.split("\r?\n")) {
			if (line.startsWith(name + ":")) {
				return line.substring(name.length() + 1).strip();
			}
		}
		throw new IllegalStateException("No " + name + " in INFO");
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
