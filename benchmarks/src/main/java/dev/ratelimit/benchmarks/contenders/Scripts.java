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

	/** This project's general script (every algorithm), from the autoconfigure jar. */
	public static final String RATELIMIT = "META-INF/ratelimit/scripts/ratelimit.lua";

	/** This project's fast path for calls whose checks are all GCRA (same arguments and reply), if it has one. */
	public static final String RATELIMIT_GCRA = "META-INF/ratelimit/scripts/gcra.lua";

	/** Spring Cloud Gateway's token bucket, from the published spring-cloud-gateway-server-webflux jar. */
	public static final String SPRING_CLOUD_GATEWAY = "META-INF/scripts/request_rate_limiter.lua";

	private Scripts() {
	}

	/** Returns the script this project's store runs for GCRA checks: its fast path if present, else the general one. */
	public static String ourGcraScript() {
		return (Scripts.class.getClassLoader().getResource(RATELIMIT_GCRA) != null) ? RATELIMIT_GCRA : RATELIMIT;
	}

	/** Returns the file name of a script location, e.g. {@code gcra.lua}. */
	public static String fileName(String location) {
		return location.substring(location.lastIndexOf('/') + 1);
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
