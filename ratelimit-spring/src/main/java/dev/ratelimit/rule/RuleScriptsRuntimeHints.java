package dev.ratelimit.rule;

import dev.ratelimit.lists.RedisAccessListRepository;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps the Lua script of {@link RedisRuleOverrideRepository} (saving an exception within its bound) and of {@link RedisAccessListRepository} (changing an allow or deny list) in a native image:
 * a class path resource read by name. Registered in {@code META-INF/spring/aot.factories}.
 */
public class RuleScriptsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.resources().registerPattern(RedisRuleOverrideRepository.SAVE_EXCEPTION_LOCATION);
		hints.resources().registerPattern(RedisAccessListRepository.SCRIPT_LOCATION);
	}

}
