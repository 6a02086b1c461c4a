package dev.ratelimit.web;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * The conformance suite of the rate limit fields over the servlet stack (filter and problem handler), against real
 * Redis; and the example responses of {@code docs/api-clients.md}, which this stack produces.
 */
@SpringBootTest(classes = ConformanceTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-conformance-test")
class ServletRateLimitFieldsConformanceIntegrationTests extends RateLimitFieldsConformance {

}
