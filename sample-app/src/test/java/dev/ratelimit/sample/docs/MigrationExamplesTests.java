package dev.ratelimit.sample.docs;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.migration.examples.bucket4j.Bucket4jExampleApplication;
import dev.ratelimit.migration.examples.resilience4j.Resilience4jExampleApplication;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The servlet examples of docs/migrating.md: the {@code ratelimit.*} yml of each (the blocks marked
 * {@code yaml migrating:<name>}) is the only configuration of an application started against a real Redis, which then
 * behaves as the page says. The gateway example is started by {@code GatewayMigrationExampleTests} in the gateway
 * module.
 */
@RedisStandaloneTest
class MigrationExamplesTests {

	private final Markdown page = Markdown.read(Markdown.repositoryRoot().resolve("docs/migrating.md"));

	private RedisEndpoint redis;

	@BeforeEach
	void flush(RedisEndpoint redis) {
		this.redis = redis;
		redis.flushAll();
	}

	@Test
	void everyExampleOfThePageIsStartedByATest() {
		assertThat(this.page.blocks()).filteredOn((block) -> block.info().startsWith("migrating:"))
			.extracting(Markdown.Block::info)
			.containsExactly("migrating:bucket4j", "migrating:gateway", "migrating:resilience4j");
	}

	@Test
	void bucket4jExampleAdmitsFivePerTenSecondsPerIp(@TempDir Path dir) throws IOException {
		try (ConfigurableApplicationContext context = start("migrating:bucket4j", Bucket4jExampleApplication.class, dir)) {
			TestHttp http = new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
			List<Integer> statuses = new ArrayList<>();
			HttpResponse<String> last = null;
			for (int i = 0; i < 6; i++) {
				last = http.get("/api/orders");
				statuses.add(last.statusCode());
			}
			assertThat(statuses).containsExactly(200, 200, 200, 200, 200, 429);
			// one token every 2 s, rounded up: 2, or 1 if a second went by since the first request
			assertThat(TestHttp.header(last, "Retry-After")).matches("[12]");
			assertThat(TestHttp.header(last, "RateLimit-Policy")).isEqualTo("\"api-per-ip\";q=5;w=10");
		}
	}

	@Test
	void resilience4jExampleAdmitsTenCallsPerSecondThenThrows(@TempDir Path dir) throws IOException {
		try (ConfigurableApplicationContext context = start("migrating:resilience4j", Resilience4jExampleApplication.class, dir)) {
			Resilience4jExampleApplication.QuoteService quotes = context
				.getBean(Resilience4jExampleApplication.QuoteService.class);
			// a fixed window of one second: calls that straddle a window's start get a second window's ten, so such a
			// run is tried again (at most twice) in a fresh window
			for (int attempt = 0; attempt < 3; attempt++) {
				this.redis.flushAll();
				long second = System.currentTimeMillis() / 1000;
				int admitted = 0;
				boolean denied = false;
				for (int i = 0; i < 11; i++) {
					try {
						quotes.quote("ACME");
						admitted++;
					}
					catch (RateLimitExceededException ex) {
						denied = true;
					}
				}
				if (System.currentTimeMillis() / 1000 == second || attempt == 2) {
					assertThat(admitted).isEqualTo(10);
					assertThat(denied).isTrue();
					break;
				}
			}
		}
	}

	private ConfigurableApplicationContext start(String example, Class<?> application, Path dir) throws IOException {
		Markdown.Block block = this.page.blocks()
			.stream()
			.filter((candidate) -> candidate.info().equals(example))
			.findFirst()
			.orElseThrow();
		Path yml = dir.resolve("application.yml");
		Files.writeString(yml, block.text());
		return new SpringApplicationBuilder(application).run(
				"--spring.config.location=file:" + yml, "--server.port=0", "--sample.embedded-redis=never",
				"--spring.data.redis.host=" + this.redis.host(), "--spring.data.redis.port=" + this.redis.port(),
				"--ratelimit.redis.timeout=5s");
	}

}
