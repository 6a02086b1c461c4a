package dev.ratelimit.sample.reactive;

import java.time.Duration;

import dev.ratelimit.RateLimited;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small WebFlux API and a Spring Cloud Gateway route under the {@code ratelimit.*} rules of {@code application.yml}:
 * reactive {@code @RateLimited} endpoints, limited on subscription, and the route {@code /gateway/hello} with the
 * {@code RateLimit} filter. Without a configured Redis it starts an embedded one, as the servlet sample does
 * ({@code sample.embedded-redis}).
 */
@SpringBootApplication
@RestController
public class ReactiveSampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(ReactiveSampleApplication.class, args);
	}

	/** Limited by the rule {@code greeting}: 5 per 10 seconds. */
	@GetMapping("/api/greeting")
	@RateLimited(rule = "greeting")
	public Mono<String> greeting(@RequestParam(defaultValue = "world") String name) {
		return Mono.fromSupplier(() -> "Hello, " + name + "!");
	}

	/**
	 * A gateway {@code KeyResolver} for routes that use the gateway's own {@code RequestRateLimiter}
	 * ({@code key-resolver: "#{@clientAddress}"}): the client's address.
	 */
	@Bean
	KeyResolver clientAddress() {
		return (exchange) -> Mono.justOrEmpty(exchange.getRequest().getRemoteAddress())
			.map((address) -> address.getAddress().getHostAddress());
	}

	/** Not limited here: the gateway route {@code /gateway/hello} forwards to it under its own rule. */
	@GetMapping("/api/hello")
	public Mono<String> hello() {
		return Mono.just("Hello from behind the gateway!");
	}

	/** One tick per 100 ms, 5 of them; limited inline to 2 streams per minute. */
	@GetMapping("/api/ticks")
	@RateLimited(name = "ticks", limit = 2, period = "1m")
	public Flux<Long> ticks() {
		return Flux.interval(Duration.ofMillis(100)).take(5);
	}

}
