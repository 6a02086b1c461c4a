package dev.ratelimit.rule;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.http.HttpHeaders;

/**
 * Keeps what expressions over the response call reflectively in a native image: {@code settle} expressions read
 * {@code status} and {@code headers} of the {@link SettleResponse} and invoke {@link HttpHeaders} methods such as
 * {@code getFirst}; {@code count-when} expressions read {@code status} and {@code exception} of the
 * {@link CountWhen.Ending} (and what a {@link Throwable} offers, such as its message). Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class ResponseExpressionsRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		hints.reflection().registerType(SettleResponse.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(HttpHeaders.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(CountWhen.Ending.class, MemberCategory.INVOKE_PUBLIC_METHODS);
		hints.reflection().registerType(Throwable.class, MemberCategory.INVOKE_PUBLIC_METHODS);
	}

}
