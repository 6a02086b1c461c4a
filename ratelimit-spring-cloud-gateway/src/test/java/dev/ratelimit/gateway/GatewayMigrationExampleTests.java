package dev.ratelimit.gateway;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gateway example of docs/migrating.md (the block marked {@code yaml migrating:gateway}), started as the gateway's
 * only configuration with its route sent to a local backend: a burst of 20 per API key is forwarded, then 429 with the
 * rule's headers; another key has its own burst.
 */
class GatewayMigrationExampleTests {

	private static final Pattern BLOCK = Pattern.compile("```yaml migrating:gateway\\n(.*?)```", Pattern.DOTALL);

	@Test
	void theGatewayExampleLimitsEachApiKeyToItsBurstThenItsRate(@TempDir Path dir) throws IOException {
		String page = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/migrating.md"));
		Matcher block = BLOCK.matcher(page);
		assertThat(block.find()).as("docs/migrating.md has a 'yaml migrating:gateway' block").isTrue();
		try (LocalBackend backend = LocalBackend.start(); RedisServerProcess redis = RedisServerProcess.start()) {
			String yml = block.group(1).replace("uri: http://orders:8080", "uri: " + backend.uri());
			assertThat(yml).contains("uri: " + backend.uri());
			Path file = dir.resolve("application.yml");
			Files.writeString(file, yml);
			try (ConfigurableApplicationContext gateway = new SpringApplicationBuilder(GatewayTestApplication.class)
				.properties("spring.config.location=file:" + file, "server.port=0",
						"spring.main.web-application-type=reactive", "spring.data.redis.url=" + redis.uri(),
						"ratelimit.redis.timeout=5s")
				.run()) {
				TestHttp http = new TestHttp(RateLimitGatewayIntegrationTests.port(gateway));
				long started = System.nanoTime();
				int admitted = 0;
				HttpResponse<String> denied = null;
				while (denied == null && admitted < 100) {
					HttpResponse<String> response = http.get("/orders/1", Map.of("X-Api-Key", "key-a"));
					if (response.statusCode() == 429) {
						denied = response;
					}
					else {
						assertThat(response.statusCode()).isEqualTo(200);
						assertThat(response.body()).isEqualTo("backend");
						admitted++;
					}
				}
				double seconds = (System.nanoTime() - started) / 1e9;
				// the burst of 20, plus the 10 per second that came back while the requests were sent
				assertThat(admitted).isBetween(20, 20 + (int) Math.ceil(seconds * 10));
				assertThat(denied).isNotNull();
				assertThat(TestHttp.header(denied, "RateLimit-Policy")).isEqualTo("\"orders-api\";q=10;w=1");
				assertThat(TestHttp.header(denied, "Retry-After")).isEqualTo("1");
				HttpResponse<String> otherKey = http.get("/orders/1", Map.of("X-Api-Key", "key-b"));
				assertThat(otherKey.statusCode()).isEqualTo(200);
				assertThat(TestHttp.header(otherKey, "RateLimit")).startsWith("\"orders-api\";r=19;");
			}
		}
	}

}
