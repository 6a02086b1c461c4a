package dev.ratelimit.web.reactive;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.web.RateLimitContext;
import dev.ratelimit.web.StreamGates;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;

/**
 * A WebFlux application whose streams report the tokens they produce with {@link RateLimitContext#from}, settled
 * when the {@code Flux} completes, fails or is cancelled (its client gone). Its rules are in
 * {@code ratelimit-settle-test.yml}, as for the servlet tests.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class WebFluxSettleTestApplication {

	@Bean
	StreamGates streamGates() {
		return new StreamGates();
	}

	@RestController
	static class Endpoints {

		private final StreamGates gates;

		Endpoints(StreamGates gates) {
			this.gates = gates;
		}

		/** Reports its usage in a header, which the rule's settle source reads. */
		@GetMapping("/settle/header")
		ResponseEntity<String> header(@RequestParam long units) {
			return ResponseEntity.ok().header("X-Usage-Tokens", Long.toString(units)).body("used " + units);
		}

		/** Streams {@code tokens} tokens as plain text; stops when the client goes away. */
		@GetMapping(path = "/settle/stream/flux", produces = MediaType.TEXT_PLAIN_VALUE)
		Flux<String> flux(ServerWebExchange exchange, @RequestParam String id, @RequestParam long tokens) {
			return tokens(exchange, id, tokens);
		}

		/** Streams {@code tokens} server-sent events; stops when the client goes away. */
		@GetMapping(path = "/settle/stream/flux-sse", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> fluxSse(ServerWebExchange exchange, @RequestParam String id, @RequestParam long tokens) {
			return tokens(exchange, id, tokens).map(String::trim);
		}

		private Flux<String> tokens(ServerWebExchange exchange, String id, long tokens) {
			RateLimitContext context = RateLimitContext.from(exchange);
			// nothing produced yet: a stream that ends before its first token costs nothing
			context.settle(0);
			AtomicLong produced = new AtomicLong();
			return Flux.range(1, (int) tokens)
				.map((i) -> new String(StreamGates.token(i), StandardCharsets.US_ASCII))
				.doOnNext((token) -> context.settle(produced.incrementAndGet()))
				.doFinally((signal) -> this.gates.produced(id, produced.get()));
		}

		/** A chunk, then one more each time the test opens the gate: three in all. */
		@GetMapping(path = "/settle/gated/flux", produces = MediaType.TEXT_PLAIN_VALUE)
		Flux<String> gated(ServerWebExchange exchange, @RequestParam String id) {
			return gatedChunks(exchange, id).map((chunk) -> "chunk-" + chunk + "\n");
		}

		@GetMapping(path = "/settle/gated/flux-sse", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
		Flux<String> gatedSse(ServerWebExchange exchange, @RequestParam String id) {
			return gatedChunks(exchange, id).map((chunk) -> "chunk-" + chunk);
		}

		private Flux<Integer> gatedChunks(ServerWebExchange exchange, String id) {
			RateLimitContext context = RateLimitContext.from(exchange);
			return Flux.concat(Mono.just(1), Mono.fromFuture(this.gates.gate(id, 2)).thenReturn(2),
					Mono.fromFuture(this.gates.gate(id, 3)).thenReturn(3))
				.doOnNext((chunk) -> context.settle(chunk * 10L))
				.doOnComplete(() -> this.gates.produced(id, 30));
		}

	}

}
