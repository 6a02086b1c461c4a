package dev.ratelimit.rule;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps the Lua script of {@link RedisRuleOverrideRepository} (saving an exception within its bound) in a native image:
 * a class path resource read by name. Registered in {@code META-INF/spring/aot.factories}.
 */
public class RuleScriptsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(RedisRuleOverrideRepository.SAVE_EXCEPTION_LOCATION);
	}

}
