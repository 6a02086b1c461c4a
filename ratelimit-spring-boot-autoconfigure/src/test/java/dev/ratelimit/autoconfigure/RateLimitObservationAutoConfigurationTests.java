package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.ratelimit.observation.DefaultRateLimitObservationConvention;
import dev.ratelimit.observation.RateLimitObservationContext;
import dev.ratelimit.observation.RateLimitObservationConvention;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.web.RateLimitFilter;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableWebApplicationContext;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** When decisions are observed: with an {@link ObservationRegistry}, unless {@code ratelimit.observations.enabled=false}. */
class RateLimitObservationAutoConfigurationTests {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(RateLimitAutoConfiguration.class,
				RateLimitServletAutoConfiguration.class, RateLimitObservationAutoConfiguration.class))
		.withPropertyValues("ratelimit.rules.per-ip.limit=10", "ratelimit.rules.per-ip.period=1m");

	@Test
	void withAnObservationRegistryTheFilterObservesEachDecision() {
		this.runner.withUserConfiguration(Registry.class).run((context) -> {
			assertThat(context).hasSingleBean(RateLimitObservations.class);
			request(context);
			assertThat(context.getBean(Registry.class).stopped).singleElement()
				.satisfies((observed) -> assertThat(observed.getName()).isEqualTo("ratelimit.decision"))
				.satisfies((observed) -> assertThat(observed.getLowCardinalityKeyValue("ratelimit.rules").getValue())
					.isEqualTo("per-ip"));
		});
	}

	@Test
	void aConventionBeanReplacesTheDefaultOne() {
		this.runner.withUserConfiguration(Registry.class, CustomConvention.class).run((context) -> {
			request(context);
			assertThat(context.getBean(Registry.class).stopped).singleElement()
				.satisfies((observed) -> assertThat(observed.getName()).isEqualTo("limiter.check"))
				.satisfies((observed) -> assertThat(observed.getLowCardinalityKeyValue("team").getValue())
					.isEqualTo("payments"));
		});
	}

	@Test
	void offWithOneProperty() {
		this.runner.withUserConfiguration(Registry.class)
			.withPropertyValues("ratelimit.observations.enabled=false")
			.run((context) -> {
				assertThat(context).doesNotHaveBean(RateLimitObservations.class);
				request(context);
				assertThat(context.getBean(Registry.class).stopped).isEmpty();
			});
	}

	@Test
	void withoutAnObservationRegistryNothingIsObserved() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(RateLimitObservations.class);
			assertThat(request(context)).isNotNull();
		});
	}

	private static MockHttpServletResponse request(AssertableWebApplicationContext context) throws Exception {
		FilterRegistrationBean<?> registration = context.getBean("rateLimitFilterRegistration",
				FilterRegistrationBean.class);
		assertThat(registration.getFilter()).isInstanceOf(RateLimitFilter.class);
		MockHttpServletResponse response = new MockHttpServletResponse();
		registration.getFilter()
			.doFilter(new MockHttpServletRequest("GET", "/api/items"), response, new MockFilterChain());
		return response;
	}

	@Configuration(proxyBeanMethods = false)
	static class Registry {

		final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

		@Bean
		ObservationRegistry observationRegistry() {
			ObservationRegistry registry = ObservationRegistry.create();
			registry.observationConfig().observationHandler(new ObservationHandler<>() {

				@Override
				public void onStop(Observation.Context context) {
					Registry.this.stopped.add(context);
				}

				@Override
				public boolean supportsContext(Observation.Context context) {
					return true;
				}

			});
			return registry;
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class CustomConvention {

		@Bean
		RateLimitObservationConvention teamConvention() {
			return new DefaultRateLimitObservationConvention() {

				@Override
				public String getName() {
					return "limiter.check";
				}

				@Override
				public KeyValues getLowCardinalityKeyValues(RateLimitObservationContext context) {
					return super.getLowCardinalityKeyValues(context).and("team", "payments");
				}

			};
		}

	}

}
