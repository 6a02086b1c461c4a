package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RateLimitStoreException;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The resilient limiter's non-blocking path over a store whose calls stay pending until the test says: the timeout
 * gives the store's own call up (its future cancelled) and the fallback decides; a caller that cancels gives the call up
 * too without counting it against the store; the breaker is told only of what the store did.
 */
class ResilientRateLimiterAsyncTests {

	private final RateLimitPolicy policy = RateLimitPolicy.of("async", Algorithm.GCRA, 5, Duration.ofMinutes(1));

	private final List<Verdict> fallbackVerdicts = new CopyOnWriteArrayList<>();

	@Test
	void theTimeoutCancelsTheStoresCallAndTheFallbackDecides() {
		PendingStore store = new PendingStore(Duration.ofMillis(50));
		try (ResilientRateLimiter limiter = limiter(store)) {
			CompletableFuture<Verdict> verdict = limiter.evaluateAsync(List.of(RateLimitCheck.of(this.policy, "a")));
			assertThat(verdict).as("returned before the store answered").isNotDone();
			await().atMost(Duration.ofSeconds(5)).until(verdict::isDone);
			assertThat(verdict.join().allowed()).isTrue();
			assertThat(this.fallbackVerdicts).hasSize(1);
			assertThat(store.calls).singleElement()
				.satisfies((call) -> assertThat(call.isCancelled()).as("the store's own future, given up").isTrue());
			assertThat(limiter.circuitBreaker().getMetrics().getNumberOfFailedCalls()).isOne();
		}
	}

	@Test
	void aCallerThatCancelsGivesTheCallUpWithoutCountingItAgainstTheStore() {
		PendingStore store = new PendingStore(Duration.ofMinutes(1));
		try (ResilientRateLimiter limiter = limiter(store)) {
			CompletableFuture<Verdict> verdict = limiter.evaluateAsync(List.of(RateLimitCheck.of(this.policy, "a")));
			verdict.cancel(true);
			assertThat(store.calls).singleElement().satisfies((call) -> assertThat(call.isCancelled()).isTrue());
			CircuitBreaker.Metrics metrics = limiter.circuitBreaker().getMetrics();
			assertThat(metrics.getNumberOfBufferedCalls()).as("neither a success nor a failure").isZero();
			assertThat(this.fallbackVerdicts).isEmpty();
		}
	}

	@Test
	void anAnswerCompletesTheFutureAndAFailureFallsBack() {
		PendingStore store = new PendingStore(Duration.ofMinutes(1));
		try (ResilientRateLimiter limiter = limiter(store)) {
			RateLimitCheck check = RateLimitCheck.of(this.policy, "a");
			CompletableFuture<Verdict> answered = limiter.evaluateAsync(List.of(check));
			CompletableFuture<Verdict> failed = limiter.evaluateAsync(List.of(check));
			store.calls.get(0).complete(List.of(new Decision(false, 5, 0, Duration.ofSeconds(12), Duration.ofSeconds(12))));
			store.calls.get(1).completeExceptionally(new RateLimitStoreException("down", new IllegalStateException()));
			assertThat(answered.join().allowed()).as("the store's verdict").isFalse();
			assertThat(failed.join().allowed()).as("the fallback's verdict").isTrue();
			assertThat(this.fallbackVerdicts).hasSize(1);
			CircuitBreaker.Metrics metrics = limiter.circuitBreaker().getMetrics();
			assertThat(metrics.getNumberOfSuccessfulCalls()).isOne();
			assertThat(metrics.getNumberOfFailedCalls()).isOne();
		}
	}

	private ResilientRateLimiter limiter(RateLimitStore store) {
		return ResilientRateLimiter.builder(store)
			.fallbackStore(new LocalRateLimitStore(100))
			.failureModes((name) -> StoreFailureMode.LOCAL)
			.denyCache(false)
			.listener(new RateLimitListener() {

				@Override
				public void onVerdict(Verdict verdict, Source source) {
					if (source == Source.FALLBACK) {
						ResilientRateLimiterAsyncTests.this.fallbackVerdicts.add(verdict);
					}
				}

			})
			.build();
	}

	/** A store whose non-blocking calls stay pending, kept for the test to complete or inspect. */
	private static final class PendingStore implements RateLimitStore {

		private final List<CompletableFuture<List<Decision>>> calls = new CopyOnWriteArrayList<>();

		private final Duration timeout;

		PendingStore(Duration timeout) {
			this.timeout = timeout;
		}

		@Override
		public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
			CompletableFuture<List<Decision>> call = new CompletableFuture<>();
			this.calls.add(call);
			return call;
		}

		@Override
		public List<Decision> evaluate(List<RateLimitCheck> checks) {
			throw new UnsupportedOperationException("non-blocking only");
		}

		@Override
		public List<Decision> peek(List<RateLimitCheck> checks) {
			throw new UnsupportedOperationException("non-blocking only");
		}

		@Override
		public @Nullable Duration timeout() {
			return this.timeout;
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
		}

	}

}
