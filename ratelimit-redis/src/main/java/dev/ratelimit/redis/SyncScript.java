package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Gcra;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.sync.SyncFlush;
import dev.ratelimit.sync.SyncReply;
import org.jspecify.annotations.Nullable;

/**
 * {@code sync.lua}: the flushes of local views, and the states it replies, read into the reference's state records.
 */
final class SyncScript {

	static final String LOCATION = "META-INF/ratelimit/scripts/sync.lua";

	private static final int ARGS_PER_FLUSH = 8;

	private final LuaScript script = new LuaScript(LOCATION);

	/**
	 * Runs the script for some flushes.
	 * @param commands where to run it
	 * @param keys per flush its key and its entries hash
	 * @param flushes the flushes
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @return the states after the flushes
	 */
	CompletableFuture<SyncReply> run(IssuedCommands commands, byte[][] keys, List<SyncFlush> flushes,
			@Nullable Long explicitNowMicros) {
		byte[][] args = new byte[1 + ARGS_PER_FLUSH * flushes.size()][];
		args[0] = (explicitNowMicros != null) ? ascii(explicitNowMicros) : new byte[0];
		for (int i = 0; i < flushes.size(); i++) {
			SyncFlush flush = flushes.get(i);
			RateLimitPolicy policy = flush.policy();
			int base = 1 + ARGS_PER_FLUSH * i;
			args[base] = ascii(policy.algorithm().scriptId());
			switch (policy.algorithm()) {
				case GCRA, TOKEN_BUCKET -> {
					args[base + 1] = ascii(policy.intervalMicros());
					args[base + 2] = ascii(policy.capacity());
				}
				case FIXED_WINDOW, SLIDING_WINDOW_COUNTER -> {
					args[base + 1] = ascii(policy.periodMicros());
					args[base + 2] = ascii(policy.limit());
				}
				default -> throw new IllegalArgumentException(
						"Rule '" + policy.name() + "' (" + policy.algorithm() + ") cannot sync locally");
			}
			args[base + 3] = ascii(Algorithms.windowOffset(policy, flush.subject()));
			args[base + 4] = ascii(flush.window());
			args[base + 5] = (flush.view() + ':' + flush.window()).getBytes(StandardCharsets.UTF_8);
			args[base + 6] = ascii(flush.total());
			args[base + 7] = ascii(flush.acknowledged());
		}
		return this.script.run(commands, keys, args).thenApply((values) -> {
			List<@Nullable Object> states = new ArrayList<>(flushes.size());
			for (int i = 0; i < flushes.size(); i++) {
				states.add(state(flushes.get(i).policy(), values.get(i + 1)));
			}
			return new SyncReply((Long) values.get(0), states);
		});
	}

	/** Reads a key's value as ratelimit.lua keeps it (a bulk string, or {@code false} for none). */
	static @Nullable Object state(RateLimitPolicy policy, @Nullable Object value) {
		if (!(value instanceof byte[] bytes)) {
			return null;
		}
		String[] parts = new String(bytes, StandardCharsets.US_ASCII).split(" ");
		return switch (policy.algorithm()) {
			case GCRA -> new Gcra.State(Long.parseLong(parts[0]));
			case TOKEN_BUCKET -> new TokenBucket.State(Long.parseLong(parts[0]));
			case FIXED_WINDOW -> new FixedWindow.State(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
			case SLIDING_WINDOW_COUNTER -> new SlidingWindowCounter.State(Long.parseLong(parts[0]),
					Long.parseLong(parts[1]), Long.parseLong(parts[2]));
			default -> throw new IllegalArgumentException(policy.algorithm() + " does not sync");
		};
	}

	CompletableFuture<String> load(IssuedCommands commands) {
		return this.script.load(commands);
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
