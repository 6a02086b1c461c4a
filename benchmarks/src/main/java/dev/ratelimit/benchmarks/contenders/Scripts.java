package dev.ratelimit.benchmarks.contenders;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Lua scripts read from the class path, with their SHA-1 for {@code EVALSHA}. */
public final class Scripts {

	/** The benchmark's own minimal GCRA script (the ideal client and the Redis ceiling). */
	public static final String MINIMAL_GCRA = "benchmarks/gcra-minimal.lua";

	/** This project's script, from the autoconfigure jar. */
	public static final String RATELIMIT = "META-INF/ratelimit/scripts/ratelimit.lua";

	/** Spring Cloud Gateway's token bucket, from the published spring-cloud-gateway-server-webflux jar. */
	public static final String SPRING_CLOUD_GATEWAY = "META-INF/scripts/request_rate_limiter.lua";

	private Scripts() {
	}

	/** Returns the bytes of a class path resource. */
	public static byte[] load(String location) {
		try (InputStream in = Scripts.class.getClassLoader().getResourceAsStream(location)) {
			if (in == null) {
				throw new IllegalStateException("Missing " + location + " on the class path");
			}
			return in.readAllBytes();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Returns the SHA-1 that {@code EVALSHA} names a script by. */
	public static String sha1(byte[] script) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(script));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
