package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keys whose subject takes I/O to find on WebFlux: {@link ReactiveKeyResolver} beans (alone, and two in one
 * composite key, resolved in turn), resolved without blocking before the rules are evaluated, only for the requests
 * their rules match.
 */
@RedisStandaloneTest
@SpringBootTest(classes = { ConformanceTestApplication.class, WebFluxKeysIntegrationTests.Resolvers.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-conformance-test", "spring.main.web-application-type=reactive",
				ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY,
				"ratelimit.rules.wf-tenant.match.paths=/cf/keys/tenant", "ratelimit.rules.wf-tenant.key=@tenantOfToken",
				"ratelimit.rules.wf-tenant.limit=2", "ratelimit.rules.wf-tenant.period=1h",
				"ratelimit.rules.wf-tenant-region.match.paths=/cf/keys/region",
				"ratelimit.rules.wf-tenant-region.key=@tenantOfToken+@regionOfTenant",
				"ratelimit.rules.wf-tenant-region.limit=1", "ratelimit.rules.wf-tenant-region.period=1h" })
class WebFluxKeysIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@Test
	void aReactiveKeyResolverKeysTheRequestsOfItsRule() {
		Map<String, String> token = Map.of("X-Token", UUID.randomUUID().toString());
		assertThat(get("/cf/keys/tenant", token).statusCode()).isEqualTo(200);
		HttpResponse<String> second = get("/cf/keys/tenant", token);
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(TestHttp.header(second, "X-RateLimit-Remaining")).isEqualTo("0");
		assertThat(get("/cf/keys/tenant", token).statusCode()).isEqualTo(429);
		assertThat(get("/cf/keys/tenant", Map.of("X-Token", UUID.randomUUID().toString())).statusCode())
			.as("another tenant").isEqualTo(200);
	}

	@Test
	void anEmptySubjectMeansTheRuleDoesNotApply() {
		HttpResponse<String> response = get("/cf/keys/tenant", Map.of());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
	}

	@Test
	void aCompositeOfReactiveResolversResolvesEachPart() {
		String token = UUID.randomUUID().toString();
		HttpResponse<String> first = get("/cf/keys/region", Map.of("X-Token", token, "X-Region", "eu"));
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(TestHttp.header(first, "RateLimit")).startsWith("\"wf-tenant-region\";r=0");
		assertThat(get("/cf/keys/region", Map.of("X-Token", token, "X-Region", "eu")).statusCode()).isEqualTo(429);
		assertThat(get("/cf/keys/region", Map.of("X-Token", token, "X-Region", "us")).statusCode())
			.as("the same tenant in another region").isEqualTo(200);
	}

	private HttpResponse<String> get(String path, Map<String, String> headers) {
		return new TestHttp(this.port).get(path, headers, Duration.ofSeconds(20));
	}

	@Configuration(proxyBeanMethods = false)
	static class Resolvers {

		/** A lookup that takes time (as a call to another service would), empty without a token. */
		@Bean
		ReactiveKeyResolver tenantOfToken() {
			return (request) -> Mono.justOrEmpty(request.getHeader("X-Token"))
				.map((token) -> "tenant-" + token)
				.delayElement(Duration.ofMillis(5));
		}

		@Bean
		ReactiveKeyResolver regionOfTenant() {
			return (request) -> Mono.justOrEmpty(request.getHeader("X-Region")).delayElement(Duration.ofMillis(5));
		}

	}

}
