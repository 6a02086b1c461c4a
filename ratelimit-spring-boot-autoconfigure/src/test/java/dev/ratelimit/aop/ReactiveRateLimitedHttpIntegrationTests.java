package dev.ratelimit.aop;

import java.net.http.HttpResponse;
import java.util.Map;

import dev.ratelimit.RateLimited;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Through a WebFlux application on real Redis: a reactive {@code @RateLimited} controller method denied on
 * subscription is answered 429 with the rate limit headers, {@code Retry-After} and the problem+json body, as the
 * servlet stack answers it; a named rule's key reads the request of the subscription.
 */
@RedisStandaloneTest
class ReactiveRateLimitedHttpIntegrationTests {

	@Test
	void deniedSubscriptionIsAnswered429WithHeadersAndProblemJson(RedisEndpoint redis) {
		redis.flushAll();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ReactiveApplication.class)
			.properties("server.port=0", "spring.main.web-application-type=reactive",
					"spring.data.redis.url=" + redis.uri(), "ratelimit.key-prefix=rl-reactive-aop",
					"ratelimit.rules.per-client.match.enabled=false", "ratelimit.rules.per-client.key=header:X-Client",
					"ratelimit.rules.per-client.limit=1", "ratelimit.rules.per-client.period=1h")
			.run()) {
			TestHttp http = new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
			for (int i = 0; i < 2; i++) {
				HttpResponse<String> admitted = http.get("/reactive/mono");
				assertThat(admitted.statusCode()).isEqualTo(200);
				assertThat(admitted.body()).isEqualTo("mono");
			}
			HttpResponse<String> denied = http.get("/reactive/mono");
			assertThat(denied.statusCode()).isEqualTo(429);
			assertThat(TestHttp.header(denied, "Content-Type")).startsWith("application/problem+json");
			assertThat(TestHttp.header(denied, "RateLimit-Policy")).isEqualTo("\"reactive-mono\";q=2;w=3600");
			assertThat(TestHttp.header(denied, "RateLimit")).startsWith("\"reactive-mono\";r=0;t=");
			assertThat(Long.parseLong(TestHttp.header(denied, "Retry-After"))).isBetween(1L, 3600L);
			assertThat(denied.body()).contains("\"status\":429", "\"violated-policies\":[\"reactive-mono\"]",
					"\"instance\":\"/reactive/mono\"");
			assertThat(http.get("/reactive/flux").body()).isEqualTo("abc");
			assertThat(http.get("/reactive/flux").statusCode()).isEqualTo(429);
			// the named rule's key reads the request, found in the Reactor context of the subscription
			Map<String, String> alice = Map.of("X-Client", "alice");
			assertThat(http.get("/reactive/client", alice).statusCode()).isEqualTo(200);
			assertThat(http.get("/reactive/client", alice).statusCode()).isEqualTo(429);
			assertThat(http.get("/reactive/client", Map.of("X-Client", "bob")).statusCode()).isEqualTo(200);
		}
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration(excludeName = {
			// Spring Security is on the test class path for other tests; this application leaves it out
			"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration",
			"org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration" })
	@Import(ReactiveController.class)
	static class ReactiveApplication {

	}

	@RestController
	static class ReactiveController {

		@GetMapping("/reactive/client")
		@RateLimited(rule = "per-client")
		public Mono<String> client() {
			return Mono.just("client");
		}

		@GetMapping("/reactive/mono")
		@RateLimited(name = "reactive-mono", limit = 2, period = "1h")
		public Mono<String> mono() {
			return Mono.just("mono");
		}

		@GetMapping("/reactive/flux")
		@RateLimited(name = "reactive-flux", limit = 1, period = "1h")
		public Flux<String> flux() {
			return Flux.just("a", "b", "c");
		}

	}

}
