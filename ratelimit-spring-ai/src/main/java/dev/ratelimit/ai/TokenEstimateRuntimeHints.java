package dev.ratelimit.ai;

import org.jspecify.annotations.Nullable;

import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.DefaultChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Keeps what a rule's cost template reads reflectively when it estimates a chat request, in a native image: the
 * properties of {@link TokenEstimateRoot}, the {@link Prompt} and its {@link ChatOptions} (a provider's own options
 * class needs hints of its own to be read beyond {@code ChatOptions}). Registered in
 * {@code META-INF/spring/aot.factories}.
 */
public class TokenEstimateRuntimeHints implements RuntimeHintsRegistrar {

	@Override
	public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
		for (Class<?> type : new Class<?>[] { TokenEstimateRoot.class, Prompt.class, ChatOptions.class,
				DefaultChatOptions.class }) {
			hints.reflection().registerType(type, MemberCategory.INVOKE_PUBLIC_METHODS);
		}
	}

}
