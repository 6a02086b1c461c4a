package dev.ratelimit.sample;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample as {@code spring-boot:process-aot} left it in this build (the {@code process-aot} execution of this
 * module, at prepare-package), started as a process of its own with {@code -Dspring.aot.enabled=true} and an embedded
 * Redis: it logs that it runs AOT-processed, and answers {@code /api/hello} (GCRA 5 per 10 s) 200 then 429, with the
 * rate limit headers. Run by failsafe after packaging, not by surefire.
 */
class SampleAotIntegrationTests {

	@Test
	void theAotProcessedSampleAnswersLimitedRequests() throws Exception {
		assertThat(Path.of("target/spring-aot/main/sources")).as("spring-boot:process-aot has run").isDirectory();
		try (SampleProcess sample = SampleProcess.start(Path.of(System.getProperty("java.home")),
				List.of("-Dspring.aot.enabled=true"), List.of())) {
			assertThat(sample.output()).contains("Starting AOT-processed SampleApplication");
			// GCRA 5 per 10 s: a burst of 5, then one every 2 s
			long start = System.nanoTime();
			int admitted = 0;
			HttpResponse<String> denied = null;
			while (denied == null && admitted < 20) {
				HttpResponse<String> response = sample.get("/api/hello");
				assertThat(response.headers().firstValue("RateLimit")).as("RateLimit header").isPresent();
				assertThat(response.headers().firstValue("RateLimit-Policy")).as("RateLimit-Policy header").isPresent();
				if (response.statusCode() == 429) {
					denied = response;
				}
				else {
					assertThat(response.statusCode()).isEqualTo(200);
					admitted++;
				}
			}
			double elapsed = (System.nanoTime() - start) / 1e9;
			assertThat(denied).as("a 429 after %d admitted in %.1f s", admitted, elapsed).isNotNull();
			assertThat(admitted).as("admitted in %.1f s", elapsed).isBetween(5, 5 + (int) (elapsed / 2));
			assertThat(denied.headers().firstValue("Retry-After")).isPresent();
		}
	}

}
