package dev.ratelimit.aop;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import dev.ratelimit.RateLimited;
import dev.ratelimit.test.NoBlockingCallConformance;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No blocking call on a non-blocking thread ({@link NoBlockingCallConformance}) while reactive {@code @RateLimited}
 * methods of a WebFlux application ({@code Mono} and {@code Flux}, with the rules of
 * {@code ratelimit-reactive-aop-test.yml}) are admitted, denied (429 through {@code ReactiveRateLimitExceptionHandler}),
 * hold and release concurrency leases, with Redis up, stalled beyond the limiter's timeout and stopped; and a method
 * whose publisher blocks after the verdict is seen.
 */
class ReactiveRateLimitedBlockHoundIntegrationTests extends NoBlockingCallConformance {

	@Override
	protected ConfigurableApplicationContext start(String redisHost, int redisPort) {
		return reactiveApplication("ratelimit-reactive-aop-test", redisHost, redisPort, ReactiveApplication.class)
			.properties(ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY)
			.run();
	}

	@Override
	protected String probePath() {
		return "/rl/allow";
	}

	@Override
	protected void assertAnswersWithRedisUp(TestHttp http) {
		assertLocalLimitKept(http, "the limit");
		Map<String, String> client = client();
		assertThat(http.get("/rl/allow", client).body()).isEqualTo("abc");
		assertThat(http.get("/rl/lease", client).body()).isEqualTo("abc");
		assertThat(http.get("/rl/lease", client).body()).as("the lease of the first was released").isEqualTo("abc");
	}

	@Override
	protected void assertDegradedAnswers(TestHttp http) {
		assertLocalLimitKept(http, "the local fallback keeps the limit");
		Map<String, String> client = client();
		assertThat(http.get("/rl/allow", client).body()).isEqualTo("abc");
		HttpResponse<String> denied = http.get("/rl/deny", client);
		assertThat(denied.statusCode()).isEqualTo(503);
		assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
	}

	private static void assertLocalLimitKept(TestHttp http, String description) {
		Map<String, String> client = client();
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			statuses.add(http.get("/rl/local", client).statusCode());
		}
		assertThat(statuses).as(description).containsExactly(200, 200, 200, 429, 429);
	}

	@Test
	void aMethodWhosePublisherBlocksAfterTheVerdictIsSeen() {
		assertBlockingCallSeen("/rl/blocking", client());
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration")
	@Import(ReactiveController.class)
	static class ReactiveApplication {

	}

	@RestController
	static class ReactiveController {

		@GetMapping("/rl/local")
		@RateLimited(rule = "aop-local")
		public Mono<String> local() {
			return Mono.just("local");
		}

		@GetMapping("/rl/allow")
		@RateLimited(rule = "aop-allow")
		public Flux<String> allow() {
			return Flux.just("a", "b", "c");
		}

		@GetMapping("/rl/deny")
		@RateLimited(rule = "aop-deny")
		public Mono<String> deny() {
			return Mono.just("deny");
		}

		@GetMapping("/rl/lease")
		@RateLimited(rule = "aop-leases")
		public Flux<String> lease() {
			return Flux.just("a", "b", "c");
		}

		/** Blocks when subscribed, which happens after the verdict, on the thread the request goes on on. */
		@GetMapping("/rl/blocking")
		@RateLimited(rule = "aop-allow")
		public Mono<String> blocking() {
			return Mono.fromRunnable(NoBlockingCallConformance::blockBriefly).thenReturn("blocked");
		}

	}

}
