package dev.ratelimit.rule;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.http.HttpHeaders;

import static org.assertj.core.api.Assertions.assertThat;

/** What {@code settle} and {@code count-when} expressions call through SpEL is kept in a native image. */
class ResponseExpressionsRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	ResponseExpressionsRuntimeHintsTests() {
		new ResponseExpressionsRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void theResponseAndItsHeadersAreInvocable() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(SettleResponse.class, "getStatus"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(SettleResponse.class, "getHeaders"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(HttpHeaders.class, "getFirst"))
			.accepts(this.hints);
	}

	@Test
	void theEndingOfCountWhenIsInvocable() {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(CountWhen.Ending.class, "status"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(CountWhen.Ending.class, "exception"))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Throwable.class, "getMessage"))
			.accepts(this.hints);
	}

	@Test
	void springAotFindsTheRegistrar() {
		assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class))
			.anySatisfy((registrar) -> assertThat(registrar).isInstanceOf(ResponseExpressionsRuntimeHints.class));
	}

}
