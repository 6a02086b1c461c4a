package dev.ratelimit.key;

import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.web.ServletRateLimitRequest;
import dev.ratelimit.web.reactive.ServerRateLimitRequest;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;

import static org.assertj.core.api.Assertions.assertThat;

/** What request expressions call through SpEL is kept in a native image, on both web stacks' request views. */
class RequestExpressionsRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	RequestExpressionsRuntimeHintsTests() {
		new RequestExpressionsRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void theRootObjectAndTheRequestMethodsThatExpressionsCallAreInvocable() throws Exception {
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(RequestExpressions.Root.class, "getRequest"))
			.accepts(this.hints);
		for (Class<?> type : new Class<?>[] { RateLimitRequest.class, ServletRateLimitRequest.class,
				ServerRateLimitRequest.class }) {
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, "getHeader")).as(type.getName())
				.accepts(this.hints);
			assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, "getParameter"))
				.as(type.getName())
				.accepts(this.hints);
		}
	}

	@Test
	void theNamedViewsAreTheStacksRequestViews() {
		assertThat(RequestExpressionsRuntimeHints.REQUEST_VIEWS).containsExactly(ServletRateLimitRequest.class.getName(),
				ServerRateLimitRequest.class.getName());
	}

	@Test
	void springAotFindsTheRegistrar() {
		assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
			.anySatisfy((registrar) -> assertThat(registrar).isInstanceOf(RequestExpressionsRuntimeHints.class));
	}

}
