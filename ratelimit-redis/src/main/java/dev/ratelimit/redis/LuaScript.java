package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;

/**
 * A Lua script under {@code META-INF/ratelimit/scripts/}, run by SHA with a fallback to the full text when Redis does
 * not know it yet ({@code NOSCRIPT}, e.g. after a restart or failover).
 */
final class LuaScript {

	private final String location;

	private final byte[] source;

	private final String sha;

	LuaScript(String location) {
		this(location, "");
	}

	/**
	 * @param location the script's resource
	 * @param shebang a first line to put before the script's text, such as {@code #!lua flags=allow-cross-slot-keys}
	 * (Redis 7 and later), or {@code ""}
	 */
	LuaScript(String location, String shebang) {
		this.location = shebang.isEmpty() ? location : location + " (" + shebang + ")";
		byte[] text = load(location);
		if (!shebang.isEmpty()) {
			byte[] first = (shebang + "\n").getBytes(StandardCharsets.US_ASCII);
			byte[] joined = new byte[first.length + text.length];
			System.arraycopy(first, 0, joined, 0, first.length);
			System.arraycopy(text, 0, joined, first.length, text.length);
			text = joined;
		}
		this.source = text;
		this.sha = sha1Hex(this.source);
	}

	/**
	 * Runs the script.
	 * @param commands where to run it: the commands of one call of the store, which the {@code EVAL} fallback joins
	 * (and which issue nothing once the call is abandoned)
	 * @param keys its keys
	 * @param args its arguments
	 * @return its reply, a list
	 */
	CompletableFuture<List<Object>> run(IssuedCommands commands, byte[][] keys, byte[][] args) {
		return commands.issue((redis) -> redis.<List<Object>>evalsha(this.sha, ScriptOutputType.MULTI, keys, args))
			.exceptionallyCompose((ex) -> isNoScript(ex)
					? commands.issue((redis) -> redis.<List<Object>>eval(this.source, ScriptOutputType.MULTI, keys, args))
					: CompletableFuture.failedFuture(ex));
	}

	/** Loads the script into Redis ({@code SCRIPT LOAD}), so that the next calls need no {@code EVAL} fallback. */
	CompletableFuture<String> load(IssuedCommands commands) {
		return commands.issue((redis) -> redis.scriptLoad(this.source));
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

	private static byte[] load(String location) {
		try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Missing " + location + " on the class path");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + location, ex);
		}
	}

	private static String sha1Hex(byte[] source) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(source));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-1 is required of every Java platform", ex);
		}
	}

	@Override
	public String toString() {
		return this.location;
	}

}
