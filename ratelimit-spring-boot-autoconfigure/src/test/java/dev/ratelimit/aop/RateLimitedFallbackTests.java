package dev.ratelimit.aop;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimited;
import dev.ratelimit.Verdict;
import dev.ratelimit.actuate.RateLimitMetrics;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.store.StoreState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code @RateLimited(fallbackMethod = ...)}: a denied call answers the fallback's value (plain, future, Mono, Flux),
 * never for a shadow limit, and is counted as {@code outcome=fallback}; a missing, ambiguous or incompatible fallback
 * fails start-up naming the bean, the method and what was expected.
 */
class RateLimitedFallbackTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.named.match.enabled=false", "ratelimit.rules.named.limit=1",
				"ratelimit.rules.named.period=1h")
		.withBean(RateLimitListener.class, () -> new RateLimitMetrics(this.registry, 0.2, () -> StoreState.LOCAL));

	@Test
	void deniedCallAnswersTheFallbacksValueAndIsCounted() {
		this.runner.withBean("quotes", Quotes.class).run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.quote("ACME")).isEqualTo("fresh ACME");
			assertThat(quotes.quote("ACME")).isEqualTo("cached ACME");
			assertThat(quotes.quote("ACME")).isEqualTo("cached ACME");
			assertThat(quotes.calls()).as("the method ran once").isEqualTo(1);
			assertThat(count("quote", "denied")).isEqualTo(2);
			assertThat(count("quote", "fallback")).isEqualTo(2);
		});
	}

	@Test
	void fallbackMayTakeTheDenialOrTheVerdict() {
		this.runner.withBean("quotes", Quotes.class).run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.withDenial(1)).isEqualTo("1");
			assertThat(quotes.withDenial(1)).startsWith("retry after PT");
			assertThat(quotes.withVerdict(1)).isEqualTo("1");
			assertThat(quotes.withVerdict(1)).isEqualTo("denied by [with-verdict]");
		});
	}

	@Test
	void namedRuleFallsBackToo() {
		this.runner.withBean("quotes", Quotes.class).run((context) -> {
				Quotes quotes = context.getBean(Quotes.class);
				assertThat(quotes.named()).isEqualTo(1);
				assertThat(quotes.named()).isEqualTo(-1);
				assertThat(count("named", "fallback")).isEqualTo(1);
			});
	}

	@Test
	void shadowRuleNeverCallsTheFallback() {
		this.runner.withBean("quotes", Quotes.class)
			.withPropertyValues("ratelimit.rules.named.mode=shadow")
			.run((context) -> {
				Quotes quotes = context.getBean(Quotes.class);
				for (int i = 0; i < 3; i++) {
					assertThat(quotes.named()).isEqualTo(1);
				}
				assertThat(count("named", "shadow_denied")).isEqualTo(2);
				assertThat(this.registry.find("ratelimit.requests").tag("outcome", "fallback").counter()).isNull();
			});
	}

	@Test
	void futureMonoAndFluxAnswerTheFallbacksOwnAsynchronousValue() {
		this.runner.withBean("quotes", Quotes.class).run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			assertThat(quotes.future("a").join()).isEqualTo("future a");
			assertThat(quotes.future("a").join()).isEqualTo("later a");
			Mono<String> first = quotes.mono("b");
			Mono<String> second = quotes.mono("b");
			StepVerifier.create(first).expectNext("mono b").verifyComplete();
			StepVerifier.create(second).expectNext("cached mono b").verifyComplete();
			StepVerifier.create(quotes.flux()).expectNext("x", "y").verifyComplete();
			StepVerifier.create(quotes.flux()).expectNext("fallback").verifyComplete();
			assertThat(count("mono", "fallback")).isEqualTo(1);
			assertThat(count("flux", "fallback")).isEqualTo(1);
		});
	}

	@Test
	void errorOfTheMethodsOwnPublisherIsNotAnsweredByTheFallback() {
		this.runner.withBean("quotes", Quotes.class).run((context) -> {
			Quotes quotes = context.getBean(Quotes.class);
			StepVerifier.create(quotes.failing()).expectError(IllegalStateException.class).verify();
		});
	}

	@Test
	void missingFallbackFailsStartUpNamingTheBeanTheMethodAndWhatWasExpected() {
		this.runner.withBean("missingFallback", MissingFallback.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessage("@RateLimited on " + MissingFallback.class.getName() + ".quote of bean 'missingFallback'"
						+ " (fallbackMethod): " + MissingFallback.class.getName() + " has no method named 'cached'."
						+ " Declare a method cached(String) returning java.lang.String, optionally with a last"
						+ " parameter RateLimitExceededException (or Verdict)");
		});
	}

	@Test
	void fallbackWithOtherParametersFailsStartUp() {
		this.runner.withBean("otherParameters", OtherParameters.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("bean 'otherParameters'")
				.hasMessageContaining("no method 'cached' of " + OtherParameters.class.getName()
						+ " takes the parameters of quote (found cached(Integer))");
		});
	}

	@Test
	void fallbackWithAnIncompatibleReturnTypeFailsStartUp() {
		this.runner.withBean("otherReturn", OtherReturn.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("bean 'otherReturn'")
				.hasMessageContaining("'cached(String)' returns reactor.core.publisher.Mono<java.lang.Integer> where"
						+ " quote returns reactor.core.publisher.Mono<java.lang.String>");
		});
	}

	@Test
	void ambiguousFallbackFailsStartUp() {
		this.runner.withBean("ambiguous", Ambiguous.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("bean 'ambiguous'")
				.hasMessageContaining("'cached' is ambiguous");
		});
	}

	@Test
	void fallbackOnAShadowLimitFailsStartUp() {
		this.runner.withBean("shadowFallback", ShadowFallback.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasMessageContaining("a shadow limit never denies");
		});
	}

	private double count(String rule, String outcome) {
		var counter = this.registry.find("ratelimit.requests").tag("rule", rule).tag("outcome", outcome).counter();
		return (counter != null) ? counter.count() : 0;
	}

	static class Quotes {

		private final AtomicInteger calls = new AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@RateLimited(name = "quote", limit = 1, period = "1h", fallbackMethod = "cachedQuote")
		public String quote(String symbol) {
			this.calls.incrementAndGet();
			return "fresh " + symbol;
		}

		String cachedQuote(String symbol) {
			return "cached " + symbol;
		}

		@RateLimited(name = "with-denial", limit = 1, period = "1h", fallbackMethod = "retryLater")
		public String withDenial(int value) {
			return Integer.toString(value);
		}

		private String retryLater(int value, RateLimitExceededException denial) {
			return "retry after " + denial.getRetryAfter();
		}

		@RateLimited(name = "with-verdict", limit = 1, period = "1h", fallbackMethod = "deniedBy")
		public String withVerdict(Integer value) {
			return Integer.toString(value);
		}

		String deniedBy(Integer value, Verdict verdict) {
			return "denied by " + verdict.deniedIndexes().stream().map((i) -> verdict.checks().get(i).policy().name())
				.toList();
		}

		@RateLimited(rule = "named", fallbackMethod = "none")
		public int named() {
			return 1;
		}

		int none() {
			return -1;
		}

		@RateLimited(name = "future", limit = 1, period = "1h", fallbackMethod = "later")
		public CompletableFuture<String> future(String name) {
			return CompletableFuture.completedFuture("future " + name);
		}

		CompletableFuture<String> later(String name) {
			return CompletableFuture.supplyAsync(() -> "later " + name);
		}

		@RateLimited(name = "mono", limit = 1, period = "1h", fallbackMethod = "cachedMono")
		public Mono<String> mono(String name) {
			return Mono.just("mono " + name);
		}

		Mono<String> cachedMono(String name) {
			return Mono.delay(Duration.ofMillis(1)).map((tick) -> "cached mono " + name);
		}

		@RateLimited(name = "flux", limit = 1, period = "1h", fallbackMethod = "fallbackFlux")
		public Flux<String> flux() {
			return Flux.just("x", "y");
		}

		Flux<String> fallbackFlux() {
			return Flux.just("fallback");
		}

		@RateLimited(name = "failing", limit = 100, period = "1h", fallbackMethod = "fallbackFlux")
		public Flux<String> failing() {
			return Flux.error(new IllegalStateException("the method's own failure"));
		}

	}

	static class MissingFallback {

		@RateLimited(name = "quote", limit = 1, period = "1h", fallbackMethod = "cached")
		public String quote(String symbol) {
			return symbol;
		}

	}

	static class OtherParameters {

		@RateLimited(name = "quote", limit = 1, period = "1h", fallbackMethod = "cached")
		public String quote(String symbol) {
			return symbol;
		}

		String cached(Integer symbol) {
			return "cached";
		}

	}

	static class OtherReturn {

		@RateLimited(name = "quote", limit = 1, period = "1h", fallbackMethod = "cached")
		public Mono<String> quote(String symbol) {
			return Mono.just(symbol);
		}

		Mono<Integer> cached(String symbol) {
			return Mono.just(1);
		}

	}

	static class Ambiguous {

		@RateLimited(name = "quote", limit = 1, period = "1h", fallbackMethod = "cached")
		public String quote(String symbol) {
			return symbol;
		}

		String cached(String symbol) {
			return "cached";
		}

		String cached(String symbol, RuntimeException denial) {
			return "cached";
		}

	}

	static class ShadowFallback {

		@RateLimited(name = "quote", limit = 1, period = "1h", shadow = true, fallbackMethod = "cached")
		public String quote(String symbol) {
			return symbol;
		}

		String cached(String symbol) {
			return "cached";
		}

	}

}
