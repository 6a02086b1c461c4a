package dev.ratelimit.web;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * Endpoints that end in every way a request can (for {@code RequestCompletionIntegrationTests}), and an
 * {@link AdmissionListener} that counts, per request, how often the completion callback it registers runs. The rule
 * {@code completion} keys requests by {@code X-Completion-Id}, so the verdict's subject names the request. Most are
 * mapped under {@code /leaks/**} too, for {@code LeaseLeakIntegrationTests}.
 */
@Configuration(proxyBeanMethods = false)
class CompletionEndpoints {

	@Bean
	Ends completionEnds() {
		return new Ends();
	}

	@Bean
	Held completionHeld() {
		return new Held();
	}

	/** Asynchronous responses in progress, for the test to complete from its own thread. */
	static final class Held {

		final BlockingQueue<DeferredResult<String>> results = new LinkedBlockingQueue<>();

		final BlockingQueue<SseEmitter> emitters = new LinkedBlockingQueue<>();

	}

	/** The outcomes of each request's completion callbacks, by {@code X-Completion-Id}. */
	static final class Ends implements AdmissionListener {

		private final Map<String, List<Outcome>> ends = new ConcurrentHashMap<>();

		@Override
		public void onAdmitted(Verdict verdict, Completion completion) {
			if (verdict.checks().get(0).policy().name().equals("completion")) {
				String id = verdict.checks().get(0).subject();
				completion.onEnd((outcome) -> this.ends.computeIfAbsent(id, (key) -> new CopyOnWriteArrayList<>())
					.add(outcome));
			}
		}

		/** Returns how often the request's callback ran, with each outcome. */
		List<Outcome> of(String id) {
			return this.ends.getOrDefault(id, List.of());
		}

	}

	/** Registered as a member of this configuration. */
	@RestController
	static class Endpoints {

		private final ExecutorService executor = Executors.newCachedThreadPool();

		private final Held held;

		Endpoints(Held held) {
			this.held = held;
		}

		@GetMapping({ "/completion/ok", "/leaks/ok" })
		String ok() {
			return "ok";
		}

		@GetMapping({ "/completion/fail", "/leaks/fail" })
		String fail() {
			throw new IllegalStateException("the controller fails");
		}

		@GetMapping({ "/completion/callable", "/leaks/callable" })
		Callable<String> callable() {
			return () -> "called";
		}

		@GetMapping({ "/completion/future", "/leaks/future" })
		CompletableFuture<String> future() {
			return CompletableFuture.supplyAsync(() -> "future", this.executor);
		}

		@GetMapping("/completion/deferred")
		DeferredResult<String> deferred() {
			DeferredResult<String> result = new DeferredResult<>();
			this.held.results.add(result);
			return result;
		}

		@GetMapping({ "/completion/deferred-timeout", "/leaks/deferred-timeout" })
		DeferredResult<String> deferredTimeout() {
			// never completed: Spring answers 503 when the 100 ms are over
			return new DeferredResult<>(100L);
		}

		@GetMapping("/completion/sse")
		SseEmitter sse() {
			SseEmitter emitter = new SseEmitter();
			this.held.emitters.add(emitter);
			return emitter;
		}

		/** Streams until the client goes away (or 64 MiB, which no test reads). */
		@GetMapping({ "/completion/stream", "/leaks/stream" })
		void stream(HttpServletResponse response) throws IOException {
			response.setContentType("application/octet-stream");
			OutputStream out = response.getOutputStream();
			byte[] chunk = new byte[8192];
			for (int i = 0; i < 8192; i++) {
				out.write(chunk);
				out.flush();
			}
		}

	}

}
