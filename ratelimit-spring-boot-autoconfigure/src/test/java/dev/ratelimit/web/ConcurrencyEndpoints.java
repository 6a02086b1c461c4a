package dev.ratelimit.web;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Endpoints under {@code concurrency} rules, for the proofs that a cap holds across instances
 * ({@code ConcurrencyAcrossInstancesIntegrationTests}), that no way of ending a request leaks its lease
 * ({@code LeaseLeakIntegrationTests}) and that a verdict with rate and concurrency rules is all or nothing
 * ({@code ConcurrencyWithRateRulesIntegrationTests}). Their rules are in {@code ratelimit-http-test.yml}; the leak
 * test also uses the endpoints of {@link CompletionEndpoints} that are mapped under {@code /leaks/**}.
 */
@Configuration(proxyBeanMethods = false)
class ConcurrencyEndpoints {

	/** The cap of the rule {@code slow-cap}, which {@code /concurrency/slow} waits to see reached once. */
	static final int SLOW_CAP = 8;

	/** Two instances in one JVM share one, registered before their beans, so that it counts both. */
	@Bean
	@ConditionalOnMissingBean
	InFlight concurrencyInFlight() {
		return new InFlight();
	}

	@Bean
	HeldRequests concurrencyHeldRequests() {
		return new HeldRequests();
	}

	/** The requests inside {@code /concurrency/slow} at once, counted by the controller itself. */
	static final class InFlight {

		final AtomicInteger now = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		final AtomicInteger entered = new AtomicInteger();

		/** Opens the first time {@link ConcurrencyEndpoints#SLOW_CAP} requests are inside together. */
		final CountDownLatch capReached = new CountDownLatch(1);

	}

	/** Requests held open until the test completes them from its own thread. */
	static final class HeldRequests {

		final BlockingQueue<DeferredResult<String>> results = new LinkedBlockingQueue<>();

	}

	/** Registered as a member of this configuration. */
	@RestController
	static class Endpoints {

		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final InFlight inFlight;

		private final HeldRequests held;

		Endpoints(InFlight inFlight, HeldRequests held) {
			this.inFlight = inFlight;
			this.held = held;
		}

		/**
		 * Counts itself in, waits (bounded) until the cap has been reached once, so that the first requests admitted
		 * are all inside together, then holds 2 ms so that later requests overlap too. The 2 ms wait for nothing: they
		 * only make each request last long enough for others to arrive meanwhile.
		 */
		@GetMapping("/concurrency/slow")
		String slow() throws InterruptedException {
			int inside = this.inFlight.now.incrementAndGet();
			try {
				this.inFlight.entered.incrementAndGet();
				this.inFlight.most.accumulateAndGet(inside, Math::max);
				if (inside >= SLOW_CAP) {
					this.inFlight.capReached.countDown();
				}
				this.inFlight.capReached.await(20, TimeUnit.SECONDS);
				Thread.sleep(2);
				return "slow";
			}
			finally {
				this.inFlight.now.decrementAndGet();
			}
		}

		@GetMapping({ "/concurrency/killed/now", "/aon/now" })
		String now() {
			return "now";
		}

		@GetMapping({ "/concurrency/killed/held", "/aon/held" })
		DeferredResult<String> held() {
			DeferredResult<String> result = new DeferredResult<>(Duration.ofMinutes(1).toMillis());
			this.held.results.add(result);
			return result;
		}

		@GetMapping("/leaks/future-fail")
		CompletableFuture<String> futureFail() {
			return CompletableFuture.supplyAsync(() -> {
				throw new IllegalStateException("the future fails");
			}, this.executor);
		}

		@GetMapping("/leaks/deferred")
		DeferredResult<String> deferred() {
			DeferredResult<String> result = new DeferredResult<>();
			this.executor.execute(() -> result.setResult("deferred"));
			return result;
		}

		@GetMapping("/leaks/sse")
		SseEmitter sse() {
			SseEmitter emitter = new SseEmitter();
			this.executor.execute(() -> {
				try {
					emitter.send("one");
					emitter.send("two");
					emitter.complete();
				}
				catch (IOException ex) {
					emitter.completeWithError(ex);
				}
			});
			return emitter;
		}

		@GetMapping("/leaks/sse-fail")
		SseEmitter sseFail() {
			SseEmitter emitter = new SseEmitter();
			this.executor.execute(() -> emitter.completeWithError(new IllegalStateException("the stream fails")));
			return emitter;
		}

	}

}
