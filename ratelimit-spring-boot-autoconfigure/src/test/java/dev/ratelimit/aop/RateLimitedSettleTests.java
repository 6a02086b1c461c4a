package dev.ratelimit.aop;

import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimited;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.rule.InvalidRateLimitRuleException;
import dev.ratelimit.rule.QuotaUsage;
import dev.ratelimit.rule.RateLimitUsage;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * {@code @RateLimited(settle = ...)}: a call reserves its estimate ({@code cost}) and is settled from its value
 * ({@code #result}) when the value arrives: returned, a future's, a {@code Mono}'s, or the last element of a
 * {@code Flux} that gives a number. A call that fails keeps its estimate; an annotation that cannot be settled fails
 * start-up naming it.
 */
class RateLimitedSettleTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.tokens.match.enabled=false", "ratelimit.rules.tokens.limit=1000000",
				"ratelimit.rules.tokens.period=1d", "ratelimit.rules.tokens.algorithm=fixed-window");

	@Test
	void aReturnedValueSettlesTheEstimate() {
		this.runner.withBean(Chat.class).run((context) -> {
			context.getBean(Chat.class).ask("ann", 150);
			assertThat(used(context, "ann")).isEqualTo(150);
			context.getBean(Chat.class).ask("ann", 1500);
			assertThat(used(context, "ann")).as("above the estimate: charged").isEqualTo(1650);
		});
	}

	@Test
	void aFuturesValueSettlesWhenItCompletes() {
		this.runner.withBean(Chat.class).run((context) -> {
			CompletableFuture<Answer> later = new CompletableFuture<>();
			context.getBean(Chat.class).askLater("bob", later);
			assertThat(used(context, "bob")).as("the estimate, reserved").isEqualTo(1000);
			later.complete(new Answer(80));
			assertThat(used(context, "bob")).isEqualTo(80);
		});
	}

	@Test
	void aMonosValueSettlesWhenItArrives() {
		this.runner.withBean(Chat.class).run((context) -> {
			StepVerifier.create(context.getBean(Chat.class).askMono("cid", 90)).expectNextCount(1).verifyComplete();
			assertThat(used(context, "cid")).isEqualTo(90);
		});
	}

	@Test
	void aFluxSettlesFromItsLastElementThatReportsUsage() {
		this.runner.withBean(Chat.class).run((context) -> {
			StepVerifier.create(context.getBean(Chat.class).stream("dan", 70)).expectNextCount(3).verifyComplete();
			assertThat(used(context, "dan")).isEqualTo(70);
		});
	}

	@Test
	void aCancelledFluxSettlesWhatItReportedSoFar() {
		this.runner.withBean(Chat.class).run((context) -> {
			StepVerifier.create(context.getBean(Chat.class).stream("eve", 70)).expectNextCount(1).thenCancel()
				.verify();
			assertThat(used(context, "eve")).as("the first element reported 10").isEqualTo(10);
		});
	}

	@Test
	void aFailedCallKeepsItsEstimate() {
		this.runner.withBean(Chat.class).run((context) -> {
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(Chat.class).fail("fay"));
			assertThat(used(context, "fay")).isEqualTo(1000);
		});
	}

	@Test
	void settleOnAnAlgorithmThatCannotBeSettledFailsStartUp() {
		this.runner.withBean(Unsettleable.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).isInstanceOf(InvalidRateLimitRuleException.class)
				.hasMessageContaining(Unsettleable.class.getName() + ".ask")
				.hasMessageContaining("(settle): sliding-window-log cannot be settled after the call");
		});
	}

	private static long used(AssertableApplicationContext context, String user) {
		return context.getBean(RateLimitUsage.class).of("tokens", user).map(QuotaUsage::used).orElseThrow();
	}

	/** What a model answered, and the tokens it used ({@code null} for a chunk of a stream that does not say). */
	record Answer(@Nullable Long tokens) {

		Answer(long tokens) {
			this(Long.valueOf(tokens));
		}

	}

	static class Chat {

		@RateLimited(rule = "tokens", key = "#user", cost = "1000", settle = "#result.tokens")
		public Answer ask(String user, long tokens) {
			return new Answer(tokens);
		}

		@RateLimited(rule = "tokens", key = "#user", cost = "1000", settle = "#result.tokens")
		public CompletableFuture<Answer> askLater(String user, CompletableFuture<Answer> answer) {
			return answer;
		}

		@RateLimited(rule = "tokens", key = "#user", cost = "1000", settle = "#result.tokens")
		public Mono<Answer> askMono(String user, long tokens) {
			return Mono.fromSupplier(() -> new Answer(tokens));
		}

		/** Two chunks that say nothing of the usage but the first, then the usage in the last one. */
		@RateLimited(rule = "tokens", key = "#user", cost = "1000", settle = "#result.tokens")
		public Flux<Answer> stream(String user, long tokens) {
			return Flux.just(new Answer(10), new Answer((Long) null), new Answer(tokens));
		}

		@RateLimited(rule = "tokens", key = "#user", cost = "1000", settle = "#result.tokens")
		public Answer fail(String user) {
			throw new IllegalStateException("the model is down");
		}

	}

	static class Unsettleable {

		@RateLimited(name = "log", limit = 10, period = "1h", algorithm = Algorithm.SLIDING_WINDOW_LOG,
				settle = "#result")
		public long ask() {
			return 1;
		}

	}

}
