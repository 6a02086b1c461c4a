package dev.ratelimit.sample.reactive;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Smoke test of the reactive sample against the embedded Redis it starts itself: the reactive endpoint and the
 * gateway route admit their rule's limit with the rate limit headers, then answer 429 with problem+json.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s" })
class ReactiveSampleApplicationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	@Test
	void reactiveEndpointAndGatewayRouteAreLimited() throws Exception {
		for (int i = 0; i < 5; i++) {
			assertThat(get("/api/greeting?name=sample").body()).isEqualTo("Hello, sample!");
		}
		HttpResponse<String> denied = get("/api/greeting");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(denied.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> routed = get("/gateway/hello");
			assertThat(routed.statusCode()).isEqualTo(200);
			assertThat(routed.body()).isEqualTo("Hello from behind the gateway!");
			assertThat(routed.headers().firstValue("RateLimit-Policy")).hasValue("\"gateway-hello\";q=3;w=10");
		}
		HttpResponse<String> deniedByRoute = get("/gateway/hello");
		assertThat(deniedByRoute.statusCode()).isEqualTo(429);
		assertThat(deniedByRoute.body()).contains("\"violated-policies\":[\"gateway-hello\"]");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
