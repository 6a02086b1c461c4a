package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.lease.Lease;
import org.jspecify.annotations.Nullable;

/**
 * {@code lease.lua}: releases or renews the leases that {@code ratelimit.lua} acquires for concurrency checks.
 */
final class LeaseScript {

	static final String LOCATION = "META-INF/ratelimit/scripts/lease.lua";

	private final LuaScript script = new LuaScript(LOCATION);

	/** What a call does to its leases, passed as {@code ARGV[2]}. */
	enum Operation {

		/** Removes them. */
		RELEASE,

		/** Pushes their expiry a lease timeout from now. */
		RENEW;

		private final byte[] argument = name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);

	}

	/**
	 * Runs the script for some leases.
	 * @param commands where to run it
	 * @param keys one key per lease
	 * @param leases the leases
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @param operation release or renew
	 * @return for each lease, whether it was held
	 */
	CompletableFuture<List<Boolean>> run(IssuedCommands commands, byte[][] keys,
			List<Lease> leases, @Nullable Long explicitNowMicros, Operation operation) {
		byte[][] args = new byte[2 + 3 * leases.size()][];
		args[0] = (explicitNowMicros != null) ? ascii(explicitNowMicros) : new byte[0];
		args[1] = operation.argument;
		for (int i = 0; i < leases.size(); i++) {
			Lease lease = leases.get(i);
			args[2 + 3 * i] = lease.id().getBytes(StandardCharsets.UTF_8);
			args[3 + 3 * i] = ascii(lease.slots());
			args[4 + 3 * i] = ascii(lease.policy().periodMicros());
		}
		return this.script.run(commands, keys, args).thenApply((values) -> {
			List<Boolean> held = new ArrayList<>(values.size());
			for (Object value : values) {
				held.add(((Long) value) == 1);
			}
			return held;
		});
	}

	/** Loads the script into Redis ({@code SCRIPT LOAD}). */
	CompletableFuture<String> load(IssuedCommands commands) {
		return this.script.load(commands);
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

}
