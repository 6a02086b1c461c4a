package dev.ratelimit.web;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Endpoints under adaptive concurrency rules (for {@code AdaptiveConcurrencyIntegrationTests}): {@code /adaptive/work}
 * answers after a latency the test sets, {@code /tight/hold} when the test says so. Neither holds a server thread
 * while it waits.
 */
@Configuration(proxyBeanMethods = false)
class AdaptiveEndpoints {

	@Bean
	Latency adaptiveLatency() {
		return new Latency();
	}

	/** The latency of {@code /adaptive/work}, and the requests {@code /tight/hold} holds. */
	static final class Latency {

		final AtomicLong millis = new AtomicLong(10);

		final BlockingQueue<DeferredResult<String>> held = new LinkedBlockingQueue<>();

	}

	/** Registered as a member of this configuration. */
	@RestController
	static class Endpoints {

		private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(2);

		private final Latency latency;

		Endpoints(Latency latency) {
			this.latency = latency;
		}

		@GetMapping("/adaptive/work")
		DeferredResult<String> work() {
			DeferredResult<String> result = new DeferredResult<>();
			this.scheduler.schedule(() -> result.setResult("worked"), this.latency.millis.get(), TimeUnit.MILLISECONDS);
			return result;
		}

		@GetMapping("/tight/hold")
		DeferredResult<String> hold() {
			DeferredResult<String> result = new DeferredResult<>();
			this.latency.held.add(result);
			return result;
		}

	}

}
