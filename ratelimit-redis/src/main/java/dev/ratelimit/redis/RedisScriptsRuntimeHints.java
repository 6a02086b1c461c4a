package dev.ratelimit.redis;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps the store's Lua scripts in a native image: they are class path resources that {@link LuaScript} reads by
 * name, which a native image leaves out unless a hint names them. Registered in {@code META-INF/spring/aot.factories}.
 */
public class RedisScriptsRuntimeHints implements RuntimeHintsRegistrar {

	/** Every script the store runs. */
	static final List<String> SCRIPTS = List.of(RateLimitScript.GENERAL, RateLimitScript.GCRA, LeaseScript.LOCATION,
			SyncScript.LOCATION, RegionScript.LOCATION);

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (String script : SCRIPTS) {
			hints.resources().registerPattern(script);
		}
	}

}
