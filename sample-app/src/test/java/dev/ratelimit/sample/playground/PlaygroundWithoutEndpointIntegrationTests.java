package dev.ratelimit.sample.playground;

import java.net.http.HttpResponse;
import java.util.Map;

import dev.ratelimit.test.TestHttp;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Without the {@code ratelimits} endpoint exposed the sample still starts, and the playground says what it needs
 * instead of changing rules some other way.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
		"sample.embedded-redis=always", "ratelimit.redis.timeout=5s", "management.endpoints.web.exposure.include=health" })
class PlaygroundWithoutEndpointIntegrationTests {

	@LocalServerPort
	private int port;

	@Test
	void applyingARuleAnswers503NamingTheEndpoint() {
		HttpResponse<String> response = new TestHttp(this.port).call("POST", "/playground/rule",
				"{\"algorithm\":\"gcra\",\"limit\":5,\"period\":\"10s\",\"burst\":5}", Map.of());
		assertThat(response.statusCode()).isEqualTo(503);
		assertThat(response.body()).contains("management.endpoints.web.exposure.include");
		assertThat(new TestHttp(this.port).get("/playground/demo/gcra").statusCode()).isEqualTo(200);
	}

}
