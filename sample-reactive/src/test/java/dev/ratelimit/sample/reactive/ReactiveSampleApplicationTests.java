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
		// GCRA 5 per 10 s: a burst of 5, then one every 2 s; exactly 5 unless the machine took 2 s or more to send them
		// (the first requests of a just started application on a loaded machine may)
		long start = System.nanoTime();
		int admitted = 0;
		HttpResponse<String> denied = null;
		while (denied == null && admitted < 20) {
			HttpResponse<String> response = get("/api/greeting?name=sample");
			if (response.statusCode() == 429) {
				denied = response;
			}
			else {
				assertThat(response.body()).isEqualTo("Hello, sample!");
				admitted++;
			}
		}
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied).as("a 429 after %d admitted in %.1f s", admitted, elapsed).isNotNull();
		assertThat(admitted).as("admitted in %.1f s", elapsed).isBetween(5, 5 + (int) (elapsed / 2));
		assertThat(denied.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		// GCRA 3 per 10 s: a burst of 3, then one every 3.3 s
		start = System.nanoTime();
		admitted = 0;
		HttpResponse<String> deniedByRoute = null;
		while (deniedByRoute == null && admitted < 20) {
			HttpResponse<String> routed = get("/gateway/hello");
			if (routed.statusCode() == 429) {
				deniedByRoute = routed;
			}
			else {
				assertThat(routed.statusCode()).isEqualTo(200);
				assertThat(routed.body()).isEqualTo("Hello from behind the gateway!");
				assertThat(routed.headers().firstValue("RateLimit-Policy")).hasValue("\"gateway-hello\";q=3;w=10");
				admitted++;
			}
		}
		elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(deniedByRoute).as("a 429 after %d admitted in %.1f s", admitted, elapsed).isNotNull();
		assertThat(admitted).as("admitted in %.1f s", elapsed).isBetween(3, 3 + (int) (elapsed * 3 / 10));
		assertThat(deniedByRoute.body()).contains("\"violated-policies\":[\"gateway-hello\"]");
	}

	private HttpResponse<String> get(String path) throws Exception {
		return client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

}
