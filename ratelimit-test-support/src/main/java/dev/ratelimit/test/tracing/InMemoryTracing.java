package dev.ratelimit.test.tracing;

import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleTracer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * For tracing tests ({@code @Import} it): an in-memory tracer whose spans a test reads, and the handler that turns the
 * application's observations into its spans (Spring Boot registers every {@code ObservationHandler} bean).
 */
@Configuration(proxyBeanMethods = false)
public class InMemoryTracing {

	@Bean
	SimpleTracer simpleTracer() {
		return new SimpleTracer();
	}

	@Bean
	DefaultTracingObservationHandler tracingObservationHandler(SimpleTracer simpleTracer) {
		return new DefaultTracingObservationHandler(simpleTracer);
	}

}
