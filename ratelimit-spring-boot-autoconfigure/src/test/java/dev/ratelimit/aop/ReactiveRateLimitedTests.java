package dev.ratelimit.aop;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Algorithm;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimited;
import dev.ratelimit.autoconfigure.RateLimitAopAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.key.KeyResolvers;
import dev.ratelimit.store.RateLimitStore;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @RateLimited} method that returns a {@code Mono} or a {@code Flux} is limited on each subscription, not
 * when it is called: a denial is an error signal carrying the verdict, the method's publisher is then never
 * subscribed, and the call ends (releasing its concurrency lease) when the publisher terminates or is cancelled.
 */
class ReactiveRateLimitedTests {

	private static final RateLimitPolicy HELD = new RateLimitPolicy("held", Algorithm.CONCURRENCY, 1,
			Duration.ofHours(1), 0, false);

	private final List<String> ends = new CopyOnWriteArrayList<>();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class, RateLimitAopAutoConfiguration.class,
				AopAutoConfiguration.class))
		.withBean(Streams.class)
		.withBean(AdmissionListener.class, () -> (verdict, completion) -> completion
			.onEnd((outcome) -> this.ends.add(verdict.checks().get(0).policy().name() + " " + outcome)));

	@Test
	void nothingIsConsumedUntilSubscription() {
		this.runner.run((context) -> {
			Streams streams = context.getBean(Streams.class);
			Mono<String> first = streams.one();
			Mono<String> second = streams.one();
			Mono<String> third = streams.one();
			assertThat(streams.subscriptions()).isZero();
			StepVerifier.create(third).expectNext("one").verifyComplete();
			StepVerifier.create(first).expectErrorSatisfies((ex) -> assertThat(ex)
				.isInstanceOfSatisfying(RateLimitExceededException.class, (denied) -> {
					assertThat(denied.getVerdict().allowed()).isFalse();
					assertThat(denied.getVerdict().checks().get(0).policy().name()).isEqualTo("one");
					assertThat(denied.getRetryAfter()).isPositive();
				}))
				.verify();
			assertThat(second).isNotNull();
			assertThat(streams.subscriptions()).as("the denied publisher is never subscribed").isOne();
		});
	}

	@Test
	void everySubscriptionIsEvaluatedAgain() {
		this.runner.run((context) -> {
			Mono<String> once = context.getBean(Streams.class).one();
			StepVerifier.create(once).expectNext("one").verifyComplete();
			StepVerifier.create(once).expectError(RateLimitExceededException.class).verify();
		});
	}

	@Test
	void fluxIsLimitedOnSubscriptionAndEndsWhenItCompletes() {
		this.runner.run((context) -> {
			Flux<Integer> numbers = context.getBean(Streams.class).numbers();
			assertThat(this.ends).isEmpty();
			StepVerifier.create(numbers).expectNext(1, 2, 3).verifyComplete();
			assertThat(this.ends).containsExactly("numbers " + Outcome.COMPLETED);
			StepVerifier.create(numbers).expectError(RateLimitExceededException.class).verify();
		});
	}

	@Test
	void failingPublisherEndsAsFailed() {
		this.runner.run((context) -> {
			StepVerifier.create(context.getBean(Streams.class).failing()).expectError(IllegalStateException.class)
				.verify();
			assertThat(this.ends).containsExactly("failing " + Outcome.FAILED);
		});
	}

	@Test
	void leaseIsHeldWhileSubscribedAndReleasedOnCancel() {
		this.runner.run((context) -> {
			Streams streams = context.getBean(Streams.class);
			RateLimitStore store = context.getBean(RateLimitStore.class);
			Disposable held = streams.held().subscribe();
			assertThat(remaining(store)).isZero();
			StepVerifier.create(streams.held()).expectError(RateLimitExceededException.class).verify();
			held.dispose();
			assertThat(this.ends).containsExactly("held " + Outcome.ABORTED);
			assertThat(remaining(store)).as("the lease was released").isOne();
			StepVerifier.create(streams.held()).expectSubscription().thenCancel().verify();
			assertThat(remaining(store)).isOne();
		});
	}

	@Test
	void leaseIsReleasedWhenThePublisherCompletes() {
		this.runner.run((context) -> {
			Streams streams = context.getBean(Streams.class);
			RateLimitStore store = context.getBean(RateLimitStore.class);
			StepVerifier.create(streams.heldBriefly()).expectNext("done").verifyComplete();
			assertThat(remaining(store)).isOne();
		});
	}

	/** Returns how many more calls the concurrency cap admits now: acquires and releases at once to find out. */
	private static long remaining(RateLimitStore store) {
		Decision decision = store.evaluate(List.of(RateLimitCheck.of(HELD, KeyResolvers.GLOBAL))).get(0);
		if (decision.lease() != null) {
			store.release(List.of(decision.lease()));
		}
		return decision.allowed() ? decision.remaining() + 1 : 0;
	}

	static class Streams {

		private final AtomicInteger subscriptions = new AtomicInteger();

		public int subscriptions() {
			return this.subscriptions.get();
		}

		@RateLimited(name = "one", limit = 1, period = "1h")
		public Mono<String> one() {
			return Mono.fromSupplier(() -> {
				this.subscriptions.incrementAndGet();
				return "one";
			});
		}

		@RateLimited(name = "numbers", limit = 1, period = "1h")
		public Flux<Integer> numbers() {
			return Flux.just(1, 2, 3);
		}

		@RateLimited(name = "failing", limit = 10, period = "1h")
		public Mono<String> failing() {
			return Mono.error(new IllegalStateException("fails"));
		}

		@RateLimited(name = "held", algorithm = Algorithm.CONCURRENCY, limit = 1, period = "1h")
		public Flux<String> held() {
			return Flux.never();
		}

		@RateLimited(name = "held", algorithm = Algorithm.CONCURRENCY, limit = 1, period = "1h")
		public Mono<String> heldBriefly() {
			return Mono.just("done");
		}

	}

}
