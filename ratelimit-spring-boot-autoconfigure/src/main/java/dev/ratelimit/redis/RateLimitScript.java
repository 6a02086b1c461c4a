package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Algorithms;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * A rate limit script under {@code META-INF/ratelimit/scripts/}: its arguments, its reply, and running it by SHA with a
 * fallback to the full text when Redis does not know it yet ({@code NOSCRIPT}, e.g. after a restart or failover).
 * {@code ratelimit.lua} evaluates, peeks at and refunds every algorithm; {@code gcra.lua} is its fast path for
 * evaluating calls whose checks are all GCRA, with the same arguments and reply.
 */
final class RateLimitScript {

	static final String GENERAL = "META-INF/ratelimit/scripts/ratelimit.lua";

	static final String GCRA = "META-INF/ratelimit/scripts/gcra.lua";

	private final String location;

	/** Encoded policy arguments; policies come from configuration and overrides, so this stays small. */
	private final Map<RateLimitPolicy, byte[][]> policyArguments = new ConcurrentHashMap<>();

	private static final byte[] EMPTY = new byte[0];

	private static final int ARGS_PER_CHECK = 6;

	private static final byte[] ZERO = ascii(0);

	private static final byte[] ONE = ascii(1);

	private final byte[] source;

	private final String sha;

	RateLimitScript(String location) {
		this.location = location;
		this.source = load(location);
		this.sha = sha1Hex(this.source);
	}

	/** The reply of one script call. */
	record Reply(boolean allowed, long nowMicros, List<Decision> decisions) {
	}

	/** What a call does, passed as {@code ARGV[2]}. */
	static final class Mode {

		/** Evaluates the checks, writing what an admitted request consumes. */
		static final Mode EVALUATE = new Mode(EMPTY);

		/** Answers what {@link #EVALUATE} would, writing nothing. */
		static final Mode PEEK = new Mode("peek".getBytes(StandardCharsets.US_ASCII));

		private final byte[] argument;

		private Mode(byte[] argument) {
			this.argument = argument;
		}

		/** Gives back what a request admitted at {@code admittedAtMicros} consumed, then inspects. */
		static Mode refund(long admittedAtMicros) {
			return new Mode(ascii(admittedAtMicros));
		}

	}

	/**
	 * Runs the script for some checks.
	 * @param commands where to run it
	 * @param keys one key per check
	 * @param checks the checks
	 * @param explicitNowMicros the time to use, or {@code null} for Redis {@code TIME}
	 * @param mode evaluate, peek or refund ({@code gcra.lua} only evaluates)
	 */
	CompletionStage<Reply> run(RedisScriptingAsyncCommands<byte[], byte[]> commands, byte[][] keys,
			List<RateLimitCheck> checks, @Nullable Long explicitNowMicros, Mode mode) {
		byte[][] args = new byte[2 + ARGS_PER_CHECK * checks.size()][];
		args[0] = (explicitNowMicros != null) ? ascii(explicitNowMicros) : EMPTY;
		args[1] = mode.argument;
		for (int i = 0; i < checks.size(); i++) {
			RateLimitCheck check = checks.get(i);
			RateLimitPolicy policy = check.policy();
			int base = 2 + ARGS_PER_CHECK * i;
			if (this.policyArguments.size() > 10_000) {
				// overrides create new policies over time; never let the cache grow without bound
				this.policyArguments.clear();
			}
			byte[][] constant = this.policyArguments.computeIfAbsent(policy, RateLimitScript::policyArguments);
			args[base] = constant[0];
			args[base + 1] = constant[1];
			args[base + 2] = constant[2];
			args[base + 3] = policy.spreadWindows() ? ascii(Algorithms.windowOffset(policy, check.subject())) : ZERO;
			args[base + 4] = (check.cost() == 1) ? ONE : ascii(check.cost());
			args[base + 5] = check.shadow() ? ONE : ZERO;
		}
		CompletableFuture<List<Object>> reply = commands.<List<Object>>evalsha(this.sha, ScriptOutputType.MULTI, keys, args)
			.toCompletableFuture()
			.exceptionallyCompose((ex) -> isNoScript(ex)
					? commands.<List<Object>>eval(this.source, ScriptOutputType.MULTI, keys, args).toCompletableFuture()
					: CompletableFuture.failedFuture(ex));
		return reply.thenApply((values) -> parse(values, checks));
	}

	/** Loads the script into Redis ({@code SCRIPT LOAD}), so that the next calls need no {@code EVAL} fallback. */
	CompletableFuture<String> load(RedisScriptingAsyncCommands<byte[], byte[]> commands) {
		return commands.scriptLoad(this.source).toCompletableFuture();
	}

	private static Reply parse(List<Object> values, List<RateLimitCheck> checks) {
		List<Decision> decisions = new ArrayList<>(checks.size());
		for (int i = 0; i < checks.size(); i++) {
			int base = 2 + 4 * i;
			decisions.add(Decision.ofMicros(number(values, base) == 1, checks.get(i).policy().limit(),
					number(values, base + 1), number(values, base + 2), number(values, base + 3)));
		}
		return new Reply(number(values, 0) == 1, number(values, 1), decisions);
	}

	private static long number(List<Object> values, int index) {
		return (Long) values.get(index);
	}

	private static boolean isNoScript(Throwable ex) {
		Throwable cause = ex;
		while (cause != null) {
			if (cause instanceof RedisNoScriptException
					|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"))) {
				return true;
			}
			cause = cause.getCause();
		}
		return false;
	}

	/** Returns the arguments that depend on the policy only: algorithm, and its two numbers. */
	private static byte[][] policyArguments(RateLimitPolicy policy) {
		return switch (policy.algorithm()) {
			case TOKEN_BUCKET, LEAKY_BUCKET, GCRA -> new byte[][] { ascii(policy.algorithm().scriptId()),
					ascii(policy.intervalMicros()), ascii(policy.capacity()) };
			default -> new byte[][] { ascii(policy.algorithm().scriptId()), ascii(policy.periodMicros()),
					ascii(policy.limit()) };
		};
	}

	private static byte[] ascii(long value) {
		return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
	}

	private static byte[] load(String location) {
		try (InputStream in = RateLimitScript.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Missing " + location + " on the class path");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + location, ex);
		}
	}

	@Override
	public String toString() {
		return this.location;
	}

	private static String sha1Hex(byte[] source) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

}
