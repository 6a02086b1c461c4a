package dev.ratelimit.web;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * A servlet application whose endpoints settle their cost after the response, in every way a handler can: a response
 * header, a SpEL source, {@link RateLimitContext} from code, and streams ({@link StreamingResponseBody},
 * {@link SseEmitter}, {@link ResponseBodyEmitter}) that report the tokens they produced as they go. Its rules are in
 * {@code ratelimit-settle-test.yml}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
public class SettleTestApplication {

	@Bean
	StreamGates streamGates() {
		return new StreamGates();
	}

	@RestController
	static class Endpoints {

		private final ExecutorService producers = Executors.newCachedThreadPool();

		private final StreamGates gates;

		Endpoints(StreamGates gates) {
			this.gates = gates;
		}

		/** Reports its usage in a header, which the rule's settle source reads. */
		@GetMapping({ "/settle/header", "/settle/expression" })
		ResponseEntity<String> header(@RequestParam long units) {
			return ResponseEntity.ok().header("X-Usage-Tokens", Long.toString(units)).body("used " + units);
		}

		/** Reports from code; the last call wins. */
		@GetMapping("/settle/code")
		String code(@RequestParam long units, @RequestParam(required = false) Long then) {
			RateLimitContext.current().settle(units);
			if (then != null) {
				RateLimitContext.current().settle(then);
			}
			return "used " + ((then != null) ? then : units);
		}

		/** A header and a report from code: the code wins. */
		@GetMapping("/settle/both")
		ResponseEntity<String> both(@RequestParam long header, @RequestParam long code) {
			RateLimitContext.current().settle(code);
			return ResponseEntity.ok().header("X-Usage-Tokens", Long.toString(header)).body("used " + code);
		}

		/** Fails before it reports anything: it keeps its estimate. */
		@GetMapping("/settle/fail")
		String fail() {
			throw new IllegalStateException("the handler fails before it knows its cost");
		}

		/**
		 * Streams {@code tokens} tokens, flushing and reporting each, from the task that Spring MVC runs it on (which
		 * finds the context through {@link RateLimitContext#current()}); stops at the first write that fails.
		 */
		@GetMapping("/settle/stream/srb")
		ResponseEntity<StreamingResponseBody> streamingResponseBody(@RequestParam String id,
				@RequestParam long tokens) {
			return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body((out) -> {
				RateLimitContext context = RateLimitContext.current();
				// nothing produced yet: a stream that ends before its first token costs nothing
				context.settle(0);
				long produced = 0;
				try {
					for (long i = 1; i <= tokens; i++) {
						out.write(StreamGates.token(i));
						out.flush();
						produced = i;
						context.settle(produced);
					}
				}
				finally {
					this.gates.produced(id, produced);
				}
			});
		}

		/** Streams {@code tokens} events from a producer thread, with the context the handler kept. */
		@GetMapping("/settle/stream/sse")
		SseEmitter sse(@RequestParam String id, @RequestParam long tokens) {
			SseEmitter emitter = new SseEmitter(60_000L);
			RateLimitContext context = RateLimitContext.current();
			context.settle(0);
			this.producers.execute(() -> {
				long produced = 0;
				try {
					for (long i = 1; i <= tokens; i++) {
						emitter.send(new String(StreamGates.token(i), StandardCharsets.US_ASCII).trim());
						produced = i;
						context.settle(produced);
					}
					emitter.complete();
				}
				catch (IOException | RuntimeException ex) {
					emitter.completeWithError(ex);
				}
				finally {
					this.gates.produced(id, produced);
				}
			});
			return emitter;
		}

		/** A chunk, then one more each time the test opens the gate: three in all. */
		@GetMapping("/settle/gated/srb")
		ResponseEntity<StreamingResponseBody> gatedStreamingResponseBody(@RequestParam String id) {
			return ResponseEntity.ok().contentType(MediaType.TEXT_PLAIN).body((out) -> {
				RateLimitContext context = RateLimitContext.current();
				for (int chunk = 1; chunk <= 3; chunk++) {
					if (chunk > 1) {
						this.gates.await(id, chunk);
					}
					writeChunk(out, chunk);
					context.settle(chunk * 10L);
				}
				this.gates.produced(id, 30);
			});
		}

		private static void writeChunk(OutputStream out, int chunk) throws IOException {
			out.write(("chunk-" + chunk + "\n").getBytes(StandardCharsets.US_ASCII));
			out.flush();
		}

		@GetMapping("/settle/gated/sse")
		SseEmitter gatedSse(@RequestParam String id) {
			SseEmitter emitter = new SseEmitter(60_000L);
			gated(id, emitter, (chunk) -> emitter.send("chunk-" + chunk));
			return emitter;
		}

		@GetMapping("/settle/gated/emitter")
		ResponseBodyEmitter gatedEmitter(@RequestParam String id) {
			ResponseBodyEmitter emitter = new ResponseBodyEmitter(60_000L);
			gated(id, emitter, (chunk) -> emitter.send("chunk-" + chunk + "\n", MediaType.TEXT_PLAIN));
			return emitter;
		}

		private void gated(String id, ResponseBodyEmitter emitter, ChunkSender sender) {
			RateLimitContext context = RateLimitContext.current();
			this.producers.execute(() -> {
				try {
					for (int chunk = 1; chunk <= 3; chunk++) {
						if (chunk > 1) {
							this.gates.await(id, chunk);
						}
						sender.send(chunk);
						context.settle(chunk * 10L);
					}
					this.gates.produced(id, 30);
					emitter.complete();
				}
				catch (IOException | RuntimeException ex) {
					emitter.completeWithError(ex);
				}
			});
		}

		@FunctionalInterface
		private interface ChunkSender {

			void send(int chunk) throws IOException;

		}

	}

}
