package dev.ratelimit.benchmarks.contenders;

import java.nio.charset.StandardCharsets;
import java.util.List;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * Spring Cloud Gateway's token bucket: its {@code META-INF/scripts/request_rate_limiter.lua}, loaded at run time from
 * the published {@code spring-cloud-gateway-server-webflux} jar, run by {@code EVALSHA} on one shared Lettuce
 * connection with the keys and arguments its {@code RedisRateLimiter} passes: {@code KEYS} = the
 * {@code request_rate_limiter.{id}.tokens} and {@code .timestamp} keys, {@code ARGV} = replenish rate, burst
 * capacity, {@code ""} (use Redis {@code TIME}), requested tokens. The gateway itself is not started: this measures
 * its script from the JVM without the gateway's reactive stack. Several rules are several calls (one filter each),
 * stopping at the first denial; they are not all or nothing.
 */
public final class SpringCloudGatewayScript implements Contender {

	private static final byte[] NOW_FROM_REDIS = new byte[0];

	private static final byte[] ONE_TOKEN = IdealClient.ascii(1);

	private final StatefulRedisConnection<byte[], byte[]> connection;

	private final RedisAsyncCommands<byte[], byte[]> commands;

	private final String sha;

	public SpringCloudGatewayScript(RedisClient client) {
		this.connection = client.connect(ByteArrayCodec.INSTANCE);
		this.commands = this.connection.async();
		this.sha = Blocking.await(this.commands.scriptLoad(Scripts.load(Scripts.SPRING_CLOUD_GATEWAY)));
	}

	@Override
	public Description description() {
		String version = ArtifactVersion.of("org.springframework.cloud", "spring-cloud-gateway-server-webflux");
		return new Description("scg", "Spring Cloud Gateway " + version + " script", "SCG script", Role.PEER,
				"its `request_rate_limiter.lua` from the published jar, run through Lettuce (one shared connection) "
						+ "with the keys and arguments its `RedisRateLimiter` passes; the gateway itself is not "
						+ "started");
	}

	@Override
	public String method(int rules) {
		return (rules == 1) ? "1 EVALSHA of request_rate_limiter.lua"
				: rules + " EVALSHAs of request_rate_limiter.lua, one after the other";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		byte[][][][] keys = new byte[subjects.length][rules.size()][][];
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				String id = "request_rate_limiter.{" + rules.get(r).name() + ":" + subjects[s] + "}";
				keys[s][r] = new byte[][] { (id + ".tokens").getBytes(StandardCharsets.UTF_8),
						(id + ".timestamp").getBytes(StandardCharsets.UTF_8) };
			}
		}
		byte[][][] args = new byte[rules.size()][][];
		for (int r = 0; r < rules.size(); r++) {
			byte[] rate = IdealClient.ascii(rules.get(r).perSecond());
			args[r] = new byte[][] { rate, rate, NOW_FROM_REDIS, ONE_TOKEN };
		}
		return (subject) -> {
			for (int r = 0; r < args.length; r++) {
				List<Long> reply = Blocking.await(
						this.commands.<List<Long>>evalsha(this.sha, ScriptOutputType.MULTI, keys[subject][r], args[r]));
				if (reply.get(0) != 1L) {
					return false;
				}
			}
			return true;
		};
	}

	@Override
	public void close() {
		this.connection.close();
	}

}
