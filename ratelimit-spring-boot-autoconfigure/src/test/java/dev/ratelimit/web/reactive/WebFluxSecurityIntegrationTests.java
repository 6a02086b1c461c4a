package dev.ratelimit.web.reactive;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import dev.ratelimit.web.ConformanceTestApplication;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.userdetails.MapReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Key {@code user} on WebFlux behind Spring Security's HTTP Basic: the principal of the reactive security context
 * keys the after-authentication rule, whose filter runs after the {@code WebFilterChainProxy}; the before-
 * authentication rule runs in the filter before it, and one response describes the verdicts of both.
 */
@RedisStandaloneTest
@SpringBootTest(classes = { ConformanceTestApplication.class, WebFluxSecurityIntegrationTests.Security.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-conformance-test", "spring.main.web-application-type=reactive",
				"ratelimit.rules.wf-per-user.match.paths=/cf/secure/**", "ratelimit.rules.wf-per-user.key=user",
				"ratelimit.rules.wf-per-user.limit=2", "ratelimit.rules.wf-per-user.period=1h",
				"ratelimit.rules.wf-per-ip.match.paths=/cf/secure/**", "ratelimit.rules.wf-per-ip.key=ip",
				"ratelimit.rules.wf-per-ip.limit=1000", "ratelimit.rules.wf-per-ip.period=1h" })
class WebFluxSecurityIntegrationTests {

	@LocalServerPort
	private int port;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}

	@Test
	void theUserKeyIsThePrincipalOfTheReactiveSecurityContext(@Autowired ApplicationContext context) {
		assertThat(context.getBeansOfType(RateLimitWebFilter.class)).containsOnlyKeys("rateLimitWebFilter",
				"rateLimitBeforeAuthenticationWebFilter");
		String path = "/cf/secure/" + System.nanoTime();
		assertThat(get(path, "alice").statusCode()).isEqualTo(200);
		HttpResponse<String> second = get(path, "alice");
		assertThat(second.statusCode()).isEqualTo(200);
		assertThat(policies(second)).as("one response describes the rules of both filters")
			.contains("\"wf-per-user\";q=2;w=3600", "\"wf-per-ip\";q=1000;w=3600");
		assertThat(get(path, "alice").statusCode()).isEqualTo(429);
		assertThat(get(path, "bob").statusCode()).as("another user, from the same address").isEqualTo(200);
	}

	@Test
	void anUnauthenticatedRequestIsRejectedBySecurityAfterTheBeforeAuthenticationRules() {
		HttpResponse<String> response = new TestHttp(this.port).get("/cf/secure/anonymous", Map.of(),
				Duration.ofSeconds(20));
		assertThat(response.statusCode()).isEqualTo(401);
	}

	private HttpResponse<String> get(String path, String user) {
		String credentials = Base64.getEncoder()
			.encodeToString((user + ":" + user + "-secret").getBytes(StandardCharsets.UTF_8));
		return new TestHttp(this.port).get(path, Map.of("Authorization", "Basic " + credentials),
				Duration.ofSeconds(20));
	}

	private static List<String> policies(HttpResponse<String> response) {
		return List.of(TestHttp.header(response, "RateLimit-Policy").split(", "));
	}

	@Configuration(proxyBeanMethods = false)
	static class Security {

		@Bean
		SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
			return http.authorizeExchange((exchanges) -> exchanges.anyExchange().authenticated())
				.httpBasic(Customizer.withDefaults())
				.csrf(ServerHttpSecurity.CsrfSpec::disable)
				.build();
		}

		@Bean
		MapReactiveUserDetailsService users() {
			return new MapReactiveUserDetailsService(
					User.withUsername("alice").password("{noop}alice-secret").roles("USER").build(),
					User.withUsername("bob").password("{noop}bob-secret").roles("USER").build());
		}

	}

}
