package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole resilient path (timeout, circuit breaker, fallback) on the non-blocking API while Redis is stalled (a
 * proxy holds its replies back far longer than the timeout): no caller thread waits, neither for Redis nor for the
 * timeout. A call hands its future back at once; the future completes with the fallback's verdict when the timeout
 * ends, on the timeout's thread; one thread issues 100 calls without waiting for any; the breaker opens and then
 * answers without calling the store at all; and once Redis answers again the breaker closes by itself. Redis never
 * keeps a charge of a call that was given up. Durations are asserted loosely (the machine is shared): what is proven
 * is the order of events and who waits, not latency.
 */
@RedisStandaloneTest
class NonBlockingResilienceIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofMillis(500);

	/** How long the stalled proxy holds each reply back: far beyond the timeout. */
	private static final long STALL_MILLIS = 2_000;

	private static final Duration WAIT_IN_OPEN_STATE = Duration.ofSeconds(1);

	private static final int CALLS = 100;

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("nonblocking", Algorithm.FIXED_WINDOW,
			100_000_000, Duration.ofHours(1));

	private final MutableClock breakerClock = MutableClock.atRealisticEpoch();

	private final AtomicInteger storeCalls = new AtomicInteger();

	private final Map<String, AtomicInteger> admittedByRedis = new ConcurrentHashMap<>();

	private final AtomicInteger fallbackVerdicts = new AtomicInteger();

	@Test
	void theResilientPathWaitsOnNoCallerThreadWhileRedisStalls(RedisEndpoint redis) throws Exception {
		String subject = "stalled-" + System.nanoTime();
		RateLimitCheck check = RateLimitCheck.of(POLICY, subject);
		ExecutorService caller = Executors.newSingleThreadExecutor();
		try (TcpProxy proxy = new TcpProxy(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(redis.host(), proxy.port()));
			factory.afterPropertiesSet();
			factory.start();
			try (RedisRateLimitStore store = new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(factory), "rl-nonblocking").timeout(TIMEOUT)
				.build(); ResilientRateLimiter limiter = limiter(store)) {
				CircuitBreaker breaker = limiter.circuitBreaker();
				// connected, scripts loaded, and decided by Redis on the non-blocking path
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
					store.loadScripts();
					return true;
				});
				await().atMost(Duration.ofSeconds(10))
					.until(() -> limiter.evaluateAsync(List.of(RateLimitCheck.of(POLICY, "warm-up"))).join() != null
							&& this.admittedByRedis.containsKey("warm-up"));

				proxy.setReplyDelayMillis(STALL_MILLIS);

				// one call: the future comes back at once, and completes with the fallback's verdict at the timeout
				AtomicReference<String> completingThread = new AtomicReference<>();
				long start = System.nanoTime();
				CompletableFuture<Verdict> first = limiter.evaluateAsync(List.of(check));
				long returnedAfter = System.nanoTime() - start;
				first.whenComplete((verdict, ex) -> completingThread.set(Thread.currentThread().getName()));
				assertThat(Duration.ofNanos(returnedAfter)).as("evaluateAsync returns before the timeout")
					.isLessThan(TIMEOUT);
				assertThat(first).as("not decided yet: Redis is stalled and the timeout has not ended").isNotDone();
				int fallbacksBefore = this.fallbackVerdicts.get();
				Verdict verdict = first.get(10, TimeUnit.SECONDS);
				long completedAfter = System.nanoTime() - start;
				assertThat(verdict.allowed()).isTrue();
				assertThat(this.fallbackVerdicts.get()).as("decided by the fallback").isEqualTo(fallbacksBefore + 1);
				assertThat(Duration.ofNanos(completedAfter)).as("completed by the timeout, not by Redis")
					.isGreaterThanOrEqualTo(TIMEOUT)
					.isLessThan(Duration.ofMillis(STALL_MILLIS));
				await().atMost(Duration.ofSeconds(5)).until(() -> completingThread.get() != null);
				assertThat(completingThread.get()).as("the timeout's thread completes the future")
					.isEqualTo("ratelimit-store-timeout");

				// one caller thread issues 100 calls while Redis is stalled: it waits for none of them
				List<CompletableFuture<Verdict>> futures = new ArrayList<>();
				long issuing = caller.submit(() -> {
					long begin = System.nanoTime();
					for (int i = 0; i < CALLS; i++) {
						futures.add(limiter.evaluateAsync(List.of(check)));
					}
					return System.nanoTime() - begin;
				}).get(10, TimeUnit.SECONDS);
				long pendingWhenIssued = caller.submit(() -> futures.stream().filter((f) -> !f.isDone()).count())
					.get(10, TimeUnit.SECONDS);
				assertThat(Duration.ofNanos(issuing)).as("issuing 100 calls took less than one timeout")
					.isLessThan(TIMEOUT);
				assertThat(pendingWhenIssued).as("the caller thread is free while its calls are pending").isPositive();
				System.out.printf("non-blocking: evaluateAsync returned after %d us, completed by the timeout after %d ms"
						+ " (timeout %d ms); %d calls issued from one thread in %d us, %d pending when issued%n",
						TimeUnit.NANOSECONDS.toMicros(returnedAfter), TimeUnit.NANOSECONDS.toMillis(completedAfter),
						TIMEOUT.toMillis(), CALLS, TimeUnit.NANOSECONDS.toMicros(issuing), pendingWhenIssued);
				CompletableFuture.allOf(futures.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
				assertThat(futures).allSatisfy((future) -> assertThat(future.join().allowed()).isTrue());
				assertThat(breaker.getState()).as("enough calls timed out to open the breaker")
					.isEqualTo(CircuitBreaker.State.OPEN);
				assertThat(limiter.state()).isEqualTo(StoreState.FALLBACK);

				// open: answered at once by the fallback, without any call to the store (not even a probe before
				// the breaker's wait has passed on its clock)
				int callsWhenOpen = this.storeCalls.get();
				for (int i = 0; i < 20; i++) {
					CompletableFuture<Verdict> answered = limiter.evaluateAsync(List.of(check));
					assertThat(answered).as("answered on the calling thread").isDone();
					assertThat(answered.join().allowed()).isTrue();
				}
				assertThat(this.storeCalls.get()).as("no store call while open").isEqualTo(callsWhenOpen);

				// Redis answers again: probes close the breaker by themselves once its wait has passed
				proxy.setReplyDelayMillis(0);
				await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
					this.breakerClock.advance(WAIT_IN_OPEN_STATE.plusMillis(1));
					limiter.evaluateAsync(List.of(check));
					return limiter.state() == StoreState.REDIS;
				});
				assertThat(breaker.getState()).isEqualTo(CircuitBreaker.State.CLOSED);
				completingThread.set(null);
				CompletableFuture<Verdict> fromRedis = limiter.evaluateAsync(List.of(check));
				fromRedis.whenComplete((done, ex) -> completingThread.set(Thread.currentThread().getName()));
				assertThat(fromRedis.get(10, TimeUnit.SECONDS).allowed()).isTrue();
				await().atMost(Duration.ofSeconds(5)).until(() -> completingThread.get() != null);
				assertThat(completingThread.get()).as("a Lettuce event loop completes an answered call, or the caller"
						+ " when it was already complete").satisfiesAnyOf(
								(name) -> assertThat(name).startsWith("lettuce-"),
								(name) -> assertThat(name).isEqualTo(Thread.currentThread().getName()));

				// the calls given up ran in Redis when their replies were held back: what they counted is given back
				await().atMost(Duration.ofSeconds(20))
					.untilAsserted(() -> assertThat(charged(redis, store, subject))
						.as("counted in Redis, against what Redis's answers admitted")
						.isEqualTo(this.admittedByRedis.getOrDefault(subject, new AtomicInteger()).get()));
			}
			finally {
				factory.destroy();
			}
		}
		finally {
			caller.shutdownNow();
		}
	}

	private ResilientRateLimiter limiter(RateLimitStore store) {
		return ResilientRateLimiter.builder(new CountingStore(store, this.storeCalls))
			.fallbackStore(new LocalRateLimitStore(1_000))
			.failureModes((name) -> StoreFailureMode.LOCAL)
			.circuitBreaker(CircuitBreaker.of("nonblocking", CircuitBreakerConfig.custom()
				.minimumNumberOfCalls(5)
				.slidingWindowSize(10)
				.waitDurationInOpenState(WAIT_IN_OPEN_STATE)
				.permittedNumberOfCallsInHalfOpenState(1)
				.clock(this.breakerClock)
				.build()))
			.denyCache(false)
			.listener(new RateLimitListener() {

				@Override
				public void onVerdict(Verdict verdict, Source source) {
					if (source == Source.STORE && verdict.allowed()) {
						NonBlockingResilienceIntegrationTests.this.admittedByRedis
							.computeIfAbsent(verdict.checks().get(0).subject(), (key) -> new AtomicInteger())
							.incrementAndGet();
					}
					else if (source == Source.FALLBACK) {
						NonBlockingResilienceIntegrationTests.this.fallbackVerdicts.incrementAndGet();
					}
				}

			})
			.build();
	}

	/** Returns the count of the fixed window in Redis for the subject. */
	private static long charged(RedisEndpoint redis, RedisRateLimitStore store, String subject) {
		String state = redis.call((commands) -> commands.get(store.key(POLICY, subject)));
		return (state != null) ? Long.parseLong(state.split(" ")[1]) : 0;
	}

	/** The Redis store, counting the calls that reach it. */
	private record CountingStore(RateLimitStore delegate, AtomicInteger calls) implements RateLimitStore {

		@Override
		public List<Decision> evaluate(List<RateLimitCheck> checks) {
			this.calls.incrementAndGet();
			return this.delegate.evaluate(checks);
		}

		@Override
		public CompletableFuture<List<Decision>> evaluateAsync(List<RateLimitCheck> checks) {
			this.calls.incrementAndGet();
			return this.delegate.evaluateAsync(checks);
		}

		@Override
		public List<Decision> peek(List<RateLimitCheck> checks) {
			return this.delegate.peek(checks);
		}

		@Override
		public @Nullable Duration timeout() {
			return this.delegate.timeout();
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
			this.delegate.reset(policy, subject);
		}

	}

}
