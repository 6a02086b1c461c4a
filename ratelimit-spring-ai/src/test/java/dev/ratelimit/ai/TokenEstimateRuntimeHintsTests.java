package dev.ratelimit.ai;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/** What a chat request's cost template reads through SpEL is kept in a native image. */
class TokenEstimateRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	TokenEstimateRuntimeHintsTests() {
		new TokenEstimateRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void theRootObjectsPropertiesAndTheOptionsAreInvocable() {
		for (String getter : new String[] { "getMaxTokens", "getPromptTokens", "getOptions", "getPrompt",
				"getRequest", "getContext" }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(TokenEstimateRoot.class, getter))
				.as(getter)
				.accepts(this.hints);
		}
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(ChatOptions.class, "getMaxTokens"))
			.accepts(this.hints);
	}

	@Test
	void springAotFindsTheRegistrar() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anySatisfy((registrar) -> assertThat(registrar).isInstanceOf(TokenEstimateRuntimeHints.class));
	}

}
