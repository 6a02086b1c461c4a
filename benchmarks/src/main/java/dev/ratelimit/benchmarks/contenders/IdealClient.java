package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The ceiling for any limiter that decides a request in one round trip from the JVM: one {@code EVALSHA} of the
 * benchmark's minimal GCRA script ({@code benchmarks/gcra-minimal.lua}) on one shared Lettuce connection, with keys
 * and arguments encoded in advance and a bare 1/0 reply. It computes nothing a real limiter reports (remaining,
 * retry-after), so a real limiter can at best match it one call per decision.
 * <p>
 * 64 threads on one auto-flushing connection already pipeline: their commands share the connection without waiting
 * for each other's replies. The explicitly pipelined variant ({@code ideal-pipelined}) switches auto-flush off: each
 * request is written unflushed, and the first thread that finds no flush under way flushes for all that wrote
 * meanwhile, so that many commands leave in one write. Both still make one script call per decision: what natural
 * batching adds beyond pipelining is what separates this project's batched limiter from them.
 * <p>
 * The asynchronous variant ({@code ideal-async}) keeps {@value InFlightWindow#DEPTH} calls in flight per load thread on
 * the auto-flushing connection, the caller shape of {@code ours-async}: the reference that row is compared with.
 */
public final class IdealClient implements Contender {

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String sha;

	private final boolean pipelined;

	private final boolean async;

	/** Commands written but not flushed yet, when pipelining explicitly. */
	private final AtomicInteger unflushed = new AtomicInteger();

	public IdealClient(RedisClient client) {
		this(client, false);
	}

	/**
	 * @param client the Redis client
	 * @param pipelined whether to switch auto-flush off and flush explicitly, many commands at once
	 */
	public IdealClient(RedisClient client, boolean pipelined) {
		this(client, pipelined, false);
	}

	private IdealClient(RedisClient client, boolean pipelined, boolean async) {
		this.pipelined = pipelined;
		this.async = async;
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.sha = Blocking.await(this.commands.scriptLoad(Scripts.load(Scripts.MINIMAL_GCRA)));
		this.connection.setAutoFlushCommands(!pipelined);
	}

	/**
	 * Returns the ideal client with {@value InFlightWindow#DEPTH} calls in flight per load thread.
	 * @param client the Redis client
	 * @return the asynchronous ideal client
	 */
	public static IdealClient async(RedisClient client) {
		return new IdealClient(client, false, true);
	}

	@Override
	public Description description() {
		if (this.async) {
			return new Description("ideal-async", "ideal client, non-blocking callers (minimal GCRA script)",
					"ideal async", Role.DIAGNOSTIC, "as *ideal client*, but with " + InFlightWindow.shape()
							+ ": the reference of *ours async*");
		}
		if (this.pipelined) {
			return new Description("ideal-pipelined", "ideal client, explicit pipelining (minimal GCRA script)",
					"ideal pipelined", Role.PEER, "Lettuce, one shared connection, auto-flush off: the first thread "
							+ "that finds no flush under way flushes every command written meanwhile; keys and "
							+ "arguments encoded in advance; reply 1/0 only");
		}
		return new Description("ideal", "ideal client (minimal GCRA script)", "ideal client", Role.PEER,
				"Lettuce, one shared auto-flushing connection (the threads' commands pipeline on it); keys and "
						+ "arguments encoded in advance; reply 1/0 only");
	}

	@Override
	public String method(int rules) {
		return (rules == 1) ? "1 EVALSHA of gcra-minimal.lua"
				: "1 EVALSHA of gcra-minimal.lua with " + rules + " keys (all or nothing)";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		Rule rule = rules.get(0);
		if (rules.stream().anyMatch((other) -> other.perSecond() != rule.perSecond())) {
			throw new IllegalArgumentException("The minimal script takes one rate for all keys");
		}
		byte[][][] keys = new byte[subjects.length][rules.size()][];
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				keys[s][r] = ("ideal:{" + rules.get(r).name() + ":" + subjects[s] + "}").getBytes(StandardCharsets.UTF_8);
			}
		}
		byte[] interval = ascii(rule.intervalMicros());
		byte[] burst = ascii(rule.perSecond());
		if (this.async) {
			InFlightWindow<Long> window = new InFlightWindow<>((reply) -> reply == 1L);
			return (subject) -> window.request(() -> this.commands.<Long>evalsha(this.sha, ScriptOutputType.INTEGER,
					keys[subject], interval, burst));
		}
		return (subject) -> {
			RedisFuture<Long> reply = this.commands.<Long>evalsha(this.sha, ScriptOutputType.INTEGER, keys[subject],
					interval, burst);
			if (this.pipelined) {
				flush();
			}
			return Blocking.await(reply) == 1L;
		};
	}

	/**
	 * Flushes what was written, unless a flush is under way: the thread running it flushes again until no command
	 * written meanwhile is left behind.
	 */
	private void flush() {
		if (this.unflushed.getAndIncrement() > 0) {
			return;
		}
		int flushed;
		do {
			flushed = this.unflushed.get();
			this.connection.flushCommands();
		}
		while (!this.unflushed.compareAndSet(flushed, 0));
	}

	static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
