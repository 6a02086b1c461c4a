package dev.ratelimit.rule;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.http.HttpHeaders;

/**
 * Keeps what {@code settle} expressions call reflectively in a native image: SpEL reads {@code status} and
 * {@code headers} of the {@link SettleResponse} and invokes {@link HttpHeaders} methods such as {@code getFirst}.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
public class SettleRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(SettleResponse.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(HttpHeaders.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
