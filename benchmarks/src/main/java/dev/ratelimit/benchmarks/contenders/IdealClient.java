package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The ceiling for any limiter that decides a request in one round trip from the JVM: one {@code EVALSHA} of the
 * benchmark's minimal GCRA script ({@code benchmarks/gcra-minimal.lua}) on one shared Lettuce connection, with keys
 * and arguments encoded in advance and a bare 1/0 reply. It computes nothing a real limiter reports (remaining,
 * retry-after), so a real limiter can at best match it.
 */
public final class IdealClient implements Contender {

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String sha;

	public IdealClient(RedisClient client) {
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.sha = Blocking.await(this.commands.scriptLoad(Scripts.load(Scripts.MINIMAL_GCRA)));
	}

	@Override
	public Description description() {
		return new Description("ideal", "ideal client (minimal GCRA script)", "ideal client", Role.PEER,
				"Lettuce, one shared connection; keys and arguments encoded in advance; reply 1/0 only");
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
		return (subject) -> {
			Long admitted = Blocking.await(this.commands.<Long>evalsha(this.sha, ScriptOutputType.INTEGER, keys[subject],
					interval, burst));
			return admitted == 1L;
		};
	}

	static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
