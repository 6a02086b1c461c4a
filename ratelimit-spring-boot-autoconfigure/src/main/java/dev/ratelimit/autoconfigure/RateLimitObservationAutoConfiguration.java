package dev.ratelimit.autoconfigure;

import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservationConvention;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.store.RateLimitStore;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.util.ClassUtils;

/**
 * Observes rate limit decisions with the application's {@link ObservationRegistry}: one {@code ratelimit.decision}
 * observation per decision (a timer and, with tracing, a span under the request's), one {@code ratelimit.slot.wait}
 * per wait for a reserved slot. Every adapter that asks for decisions ({@link RateLimitObservationAware}: the filters,
 * the aspect, outbound clients, the gateway) is handed the {@link RateLimitObservations}. Off with
 * {@code ratelimit.observations.enabled=false}.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean({ ObservationRegistry.class, RateLimitStore.class })
@ConditionalOnBooleanProperty(name = "ratelimit.observations.enabled", matchIfMissing = true)
public final class RateLimitObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitObservations rateLimitObservations(ObservationRegistry observationRegistry,
			ObjectProvider<RateLimitObservationConvention> convention, RateLimitStore rateLimitStore,
			ObjectProvider<StoreStatus> status) {
		StoreStatus storeStatus = status.getIfUnique(StoreStatus::local);
		return new RateLimitObservations(observationRegistry, convention.getIfUnique(),
				RateLimitActuatorAutoConfiguration.storeName(rateLimitStore), storeStatus::state);
	}

	/** Hands the observations to every adapter, including those in a {@link FilterRegistrationBean}. */
	@Bean
	static BeanPostProcessor rateLimitObservationsPostProcessor(ObjectProvider<RateLimitObservations> observations) {
		return new BeanPostProcessor() {

			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				Object adapter = bean;
				if (SERVLET_PRESENT && bean instanceof FilterRegistrationBean<?> registration) {
					adapter = registration.getFilter();
				}
				if (adapter instanceof RateLimitObservationAware aware) {
					aware.setObservations(observations.getObject());
				}
				return bean;
			}

		};
	}

	private static final boolean SERVLET_PRESENT = ClassUtils.isPresent(
			"org.springframework.boot.web.servlet.FilterRegistrationBean",
			RateLimitObservationAutoConfiguration.class.getClassLoader());

}
