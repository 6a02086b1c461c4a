package dev.ratelimit.sample;

import dev.ratelimit.KeyResolver;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;

/**
 * A small API that shows the rate limiting starter. Its rules are in {@code application.yml}; without a configured
 * Redis it starts an embedded one (see {@link dev.ratelimit.sample.redis.EmbeddedRedisEnvironmentPostProcessor}).
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

	/** The key of the {@code search} rule ({@code key: "@apiKeyOrClientIp"}): a known API key, else the client IP. */
	@Bean
	KeyResolver apiKeyOrClientIp(ApiKeyPlans plans) {
		return plans::knownKeyOrClientIp;
	}

}
