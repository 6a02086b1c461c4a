package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Consumption;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.region.RegionEntries;
import dev.ratelimit.region.RegionReply;
import dev.ratelimit.region.RegionState;
import org.jspecify.annotations.Nullable;

/**
 * {@code region.lua}: the counts, refunds and merges of {@code scope: global} rules, and the merged states it replies.
 */
final class RegionScript {

	static final String LOCATION = "META-INF/ratelimit/scripts/region.lua";

	private static final int ARGS_PER_CHECK = 6;

	private final LuaScript script = new LuaScript(LOCATION);

	/**
	 * Counts (or only reads) checks on the merged entries of their keys.
	 * @param commands where to run it
	 * @param keys per check its hash
	 * @param checks the checks
	 * @param region this region
	 * @param commit {@code false} to only read
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return the reply
	 */
	CompletableFuture<RegionReply> count(IssuedCommands commands, byte[][] keys, List<RateLimitCheck> checks,
			String region, boolean commit, @Nullable Long explicitNowMicros) {
		byte[][] args = header(explicitNowMicros, commit ? "count" : "peek", region, checks.size());
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			put(args, i, check.policy(), check.subject(), check.cost(), check.shadow() ? 1 : 0);
		}
		return this.script.run(commands, keys, args).thenApply(RegionScript::reply);
	}

	/**
	 * Gives units back under this region's refund entries.
	 * @param commands where to run it
	 * @param keys per refund its hash
	 * @param consumptions what was counted
	 * @param region this region
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return the reply
	 */
	CompletableFuture<RegionReply> refund(IssuedCommands commands, byte[][] keys, List<Consumption> consumptions,
			String region, @Nullable Long explicitNowMicros) {
		return entries(commands, keys, consumptions, "refund", region, explicitNowMicros);
	}

	/**
	 * Charges units under this region's count entries, without a limit check.
	 * @param commands where to run it
	 * @param keys per charge its hash
	 * @param charges the units charged, each at the time its request was counted
	 * @param region this region
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return the reply
	 */
	CompletableFuture<RegionReply> charge(IssuedCommands commands, byte[][] keys, List<Consumption> charges,
			String region, @Nullable Long explicitNowMicros) {
		return entries(commands, keys, charges, "charge", region, explicitNowMicros);
	}

	private CompletableFuture<RegionReply> entries(IssuedCommands commands, byte[][] keys,
			List<Consumption> consumptions, String mode, String region, @Nullable Long explicitNowMicros) {
		byte[][] args = header(explicitNowMicros, mode, region, consumptions.size());
		for (int i = 0; i < consumptions.size(); i++) {
			Consumption consumption = consumptions.get(i);
			put(args, i, consumption.policy(), consumption.subject(), consumption.cost(), consumption.atMicros());
		}
		return this.script.run(commands, keys, args).thenApply(RegionScript::reply);
	}

	/**
	 * Merges another region's entries, keeping the larger value per field.
	 * @param commands where to run it
	 * @param keys per element its hash
	 * @param entries the entries
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return done when merged
	 */
	CompletableFuture<Void> merge(IssuedCommands commands, byte[][] keys, List<RegionEntries> entries,
			@Nullable Long explicitNowMicros) {
		List<byte[]> args = new ArrayList<>();
		args.add((explicitNowMicros != null) ? ascii(explicitNowMicros) : new byte[0]);
		args.add(ascii("merge"));
		args.add(new byte[0]);
		for (RegionEntries element : entries) {
			args.add(ascii(element.policy().periodMicros()));
			args.add(ascii(element.fields().size()));
			for (Map.Entry<String, Long> field : element.fields().entrySet()) {
				args.add(field.getKey().getBytes(StandardCharsets.UTF_8));
				args.add(ascii(field.getValue()));
			}
		}
		return this.script.run(commands, keys, args.toArray(byte[][]::new)).thenAccept((reply) -> {
		});
	}

	CompletableFuture<String> load(IssuedCommands commands) {
		return this.script.load(commands);
	}

	private static byte[][] header(@Nullable Long explicitNowMicros, String mode, String region, int n) {
		byte[][] args = new byte[3 + ARGS_PER_CHECK * n][];
		args[0] = (explicitNowMicros != null) ? ascii(explicitNowMicros) : new byte[0];
		args[1] = ascii(mode);
		args[2] = region.getBytes(StandardCharsets.UTF_8);
		return args;
	}

	private static void put(byte[][] args, int i, RateLimitPolicy policy, String subject, long cost, long last) {
		int base = 3 + ARGS_PER_CHECK * i;
		args[base] = ascii(policy.algorithm().scriptId());
		args[base + 1] = ascii(policy.periodMicros());
		args[base + 2] = ascii(policy.limit());
		args[base + 3] = ascii(Algorithms.windowOffset(policy, subject));
		args[base + 4] = ascii(cost);
		args[base + 5] = ascii(last);
	}

	private static RegionReply reply(List<Object> values) {
		int n = (values.size() - 2) / 4;
		List<RegionState> states = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			int base = 2 + 4 * i;
			states.add(new RegionState((Long) values.get(base), (Long) values.get(base + 1),
					(Long) values.get(base + 2), (Long) values.get(base + 3)));
		}
		return new RegionReply((Long) values.get(0), ((Long) values.get(1)) == 1L, states);
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] ascii(String value) {
		return value.getBytes(StandardCharsets.US_ASCII);
	}

}
