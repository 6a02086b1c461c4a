package dev.ratelimit.web;

import dev.ratelimit.web.reactive.RateLimitWebFilter;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance suite of the rate limit fields and the shared HTTP cases over the WebFlux stack (the
 * {@link RateLimitWebFilter} on Reactor Netty, the same annotated controllers), against real Redis: every case
 * asserts exactly what it asserts of the servlet stack.
 */
@SpringBootTest(classes = ConformanceTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "spring.config.name=ratelimit-conformance-test", "spring.main.web-application-type=reactive",
				ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY })
class WebFluxRateLimitFieldsConformanceIntegrationTests extends RateLimitFieldsConformance {

	@Test
	void theWebFilterAppliesTheRulesAndNoServletFilterExists(@Autowired ApplicationContext context) {
		assertThat(context.getBeansOfType(RateLimitWebFilter.class)).hasSize(1);
		assertThat(context.getBeanNamesForType(RateLimitFilter.class)).isEmpty();
		assertThat(context.containsBean("rateLimitFilterRegistration")).isFalse();
	}

}
