package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * A diagnostic, not a limiter anyone would use: the script this project's store runs for GCRA checks (its fast path
 * {@code gcra.lua} when the jar has one, else {@code ratelimit.lua}) run exactly like the ideal client runs its
 * minimal script (one shared Lettuce connection, keys and arguments encoded in advance, only the verdict read from
 * the reply). Between the ideal client and this row lies what the script costs; between this row and this project's
 * limiter lies what the Java side ({@code StoreRateLimiter}, {@code RedisRateLimitStore}) costs. The arguments follow
 * the layout documented at the top of the script (gcra.lua's compact one, or ratelimit.lua's).
 */
public final class OurScriptBare implements Contender {

	private static final byte[] EMPTY = new byte[0];

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String script;

	private final String sha;

	public OurScriptBare(RedisClient client) {
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.script = Scripts.fileName(Scripts.ourGcraScript());
		this.sha = Blocking.await(this.commands.scriptLoad(Scripts.load(Scripts.ourGcraScript())));
	}

	@Override
	public Description description() {
		return new Description("ours-script", this.script + " via bare Lettuce (diagnostic)", "diagnostic",
				Role.DIAGNOSTIC, "the script this project's store runs for GCRA, alone, run like the ideal client runs "
						+ "its own: Lettuce, one shared connection, keys and arguments encoded in advance, only the "
						+ "verdict read");
	}

	@Override
	public String method(int rules) {
		return (rules == 1) ? "1 EVALSHA of " + this.script + ", no Java layer"
				: "1 EVALSHA of " + this.script + " with " + rules + " checks, no Java layer";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		byte[][][] keys = new byte[subjects.length][rules.size()][];
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				keys[s][r] = ("bare:{" + rules.get(r).name() + ":" + subjects[s] + "}").getBytes(StandardCharsets.UTF_8);
			}
		}
		byte[][] args = Scripts.ourGcraScript().equals(Scripts.RATELIMIT_GCRA) ? compactArguments(rules)
				: generalArguments(rules);
		// gcra.lua's flat reply: the time, then the first check's resetAfter when admitted (never negative), or -1
		// (admitted, a shadow check denied) or -2 (denied); ratelimit.lua's starts with the verdict
		boolean compact = Scripts.ourGcraScript().equals(Scripts.RATELIMIT_GCRA);
		return (subject) -> {
			List<Long> reply = Blocking.await(
					this.commands.<List<Long>>evalsha(this.sha, ScriptOutputType.MULTI, keys[subject], args));
			return compact ? reply.get(1) != -2L : reply.get(0) == 1L;
		};
	}

	/** ratelimit.lua's layout, 7 arguments per check (decision 68): algorithm, interval, capacity, 0, cost, shadow, maxWait. */
	private static byte[][] generalArguments(List<Rule> rules) {
		byte[][] args = new byte[2 + 7 * rules.size()][];
		args[0] = EMPTY;
		args[1] = EMPTY;
		for (int r = 0; r < rules.size(); r++) {
			int base = 2 + 7 * r;
			args[base] = IdealClient.ascii(6);
			args[base + 1] = IdealClient.ascii(rules.get(r).intervalMicros());
			args[base + 2] = IdealClient.ascii(rules.get(r).perSecond());
			args[base + 3] = IdealClient.ascii(0);
			args[base + 4] = IdealClient.ascii(1);
			args[base + 5] = IdealClient.ascii(0);
			args[base + 6] = IdealClient.ascii(0);
		}
		return args;
	}

	/**
	 * gcra.lua's compact layout (decision 136): time, the number of specs (negative: the keys are distinct, decision
	 * 137), the request's shape (its number of checks), per rule its spec (interval, capacity, cost 1, not shadow), then
	 * the spec of each check.
	 */
	private static byte[][] compactArguments(List<Rule> rules) {
		int n = rules.size();
		byte[][] args = new byte[3 + 5 * n][];
		args[0] = EMPTY;
		args[1] = IdealClient.ascii(-n);
		args[2] = IdealClient.ascii(n);
		for (int r = 0; r < n; r++) {
			args[3 + 4 * r] = IdealClient.ascii(rules.get(r).intervalMicros());
			args[4 + 4 * r] = IdealClient.ascii(rules.get(r).perSecond());
			args[5 + 4 * r] = IdealClient.ascii(1);
			args[6 + 4 * r] = IdealClient.ascii(0);
			args[3 + 4 * n + r] = IdealClient.ascii(r + 1);
		}
		return args;
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
