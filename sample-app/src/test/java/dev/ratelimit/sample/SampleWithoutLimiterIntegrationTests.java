package dev.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample with the limiter switched off ({@code ratelimit.enabled=false}, as the HTTP overhead benchmark's baseline
 * runs it) starts and serves its endpoints unlimited; the usage endpoint says there is nothing to read.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "ratelimit.enabled=false", "sample.embedded-redis=always" })
class SampleWithoutLimiterIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	@LocalServerPort
	private int port;

	private HttpResponse<String> get(String path) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("X-API-Key", "demo-free-key")
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	@Test
	void endpointsAnswerWithoutLimits() throws Exception {
		for (int i = 0; i < 30; i++) {
			HttpResponse<String> hello = get("/api/hello");
			assertThat(hello.statusCode()).isEqualTo(200);
			assertThat(hello.headers().firstValue("RateLimit")).isEmpty();
		}
		HttpResponse<String> usage = get("/api/usage");
		assertThat(usage.statusCode()).isEqualTo(404);
	}

}
