package dev.ratelimit.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimited;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * An admitted {@code @RateLimited} call ends once: when the method returns or throws, or when the
 * {@link java.util.concurrent.CompletionStage} it returned completes, not before.
 */
class RateLimitedCallCompletionTests {

	private final List<String> ends = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withBean(Jobs.class)
		.withBean(AdmissionListener.class, () -> (verdict, completion) -> completion
			.onEnd((outcome) -> this.ends.add(verdict.checks().get(0).policy().name() + " " + outcome)));

	@Test
	void returningMethodEndsWhenItReturns() {
		this.runner.run((context) -> {
			assertThat(context.getBean(Jobs.class).run()).isEqualTo("ran");
			assertThat(this.ends).containsExactly("run " + Outcome.COMPLETED);
		});
	}

	@Test
	void throwingMethodEndsAsFailed() {
		this.runner.run((context) -> {
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(Jobs.class).fail());
			assertThat(this.ends).containsExactly("fail " + Outcome.FAILED);
		});
	}

	@Test
	void futureEndsWhenItCompletesNotWhenTheMethodReturns() {
		this.runner.run((context) -> {
			Jobs jobs = context.getBean(Jobs.class);
			CompletableFuture<String> first = jobs.later();
			CompletableFuture<String> second = jobs.later();
			CompletableFuture<String> third = jobs.later();
			assertThat(this.ends).isEmpty();
			first.complete("done");
			second.completeExceptionally(new TimeoutException());
			third.cancel(false);
			first.complete("again");
			assertThat(this.ends).containsExactly("later " + Outcome.COMPLETED, "later " + Outcome.TIMED_OUT,
					"later " + Outcome.ABORTED);
		});
	}

	static class Jobs {

		@RateLimited(name = "run", limit = 10, period = "1h")
		public String run() {
			return "ran";
		}

		@RateLimited(name = "fail", limit = 10, period = "1h")
		public String fail() {
			throw new IllegalStateException("fails");
		}

		@RateLimited(name = "later", limit = 10, period = "1h")
		public CompletableFuture<String> later() {
			return new CompletableFuture<>();
		}

	}

}
