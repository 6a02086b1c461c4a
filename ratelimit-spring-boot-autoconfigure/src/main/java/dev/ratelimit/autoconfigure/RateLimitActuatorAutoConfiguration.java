package dev.ratelimit.autoconfigure;

import java.util.List;
import java.util.Locale;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.actuate.AdaptiveConcurrencyMetrics;
import dev.ratelimit.actuate.OverrideFieldsAdvisor;
import dev.ratelimit.actuate.RateLimitHealthIndicator;
import dev.ratelimit.actuate.RateLimitMetrics;
import dev.ratelimit.actuate.RateLimitRegionMetrics;
import dev.ratelimit.actuate.RateLimitSyncMetrics;
import dev.ratelimit.actuate.RateLimitsEndpoint;
import dev.ratelimit.actuate.RateLimitsEndpointWebExtension;
import dev.ratelimit.actuate.RedisMemoryMetrics;
import dev.ratelimit.actuate.ListsRequestBodyAdvice;
import dev.ratelimit.actuate.ListsRequestBodyWebFilter;
import dev.ratelimit.actuate.RateLimitListsAdmin;
import dev.ratelimit.actuate.TopOffenders;
import dev.ratelimit.lists.AccessListRepository;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.redis.RedisMemoryMonitor;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.store.RateLimitStore;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.web.context.reactive.ReactiveWebApplicationContext;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;

/**
 * Operating the limiter, when Spring Boot Actuator and Micrometer are present: the {@code ratelimits} endpoint, the
 * {@code ratelimit} health contributor, metrics and the top offenders.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class },
		afterName = { "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
				"org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBean(RateLimitRules.class)
public final class RateLimitActuatorAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	TopOffenders rateLimitTopOffenders(RateLimitProperties properties) {
		return new TopOffenders(properties.getMetrics().getOffendersPerRule(), properties.getMetrics().getOffendersWindow(),
				System::nanoTime);
	}

	static String storeName(RateLimitStore store) {
		return (store instanceof RedisRateLimitStore) ? "redis" : store.getClass().getSimpleName().replace("RateLimitStore", "")
			.toLowerCase(Locale.ROOT);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(Endpoint.class)
	@ConditionalOnAvailableEndpoint(RateLimitsEndpoint.class)
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitsEndpoint rateLimitsEndpoint(RateLimitRules rules, RateLimiter limiter,
				ObjectProvider<StoreStatus> status, RuleOverrideRepository overrides,
				ObjectProvider<TopOffenders> offenders, RateLimitStore store,
				ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits, ObjectProvider<ClientIp> clientIp,
				ObjectProvider<AccessListRepository> listRepository, RateLimitProperties properties) {
			AccessListRepository repository = listRepository.getIfUnique();
			RateLimitListsAdmin lists = (repository != null) ? new RateLimitListsAdmin(rules, rules.lists(), repository,
					properties.getLists().getMaxEntries()) : null;
			return new RateLimitsEndpoint(rules, limiter, status.getIfUnique(StoreStatus::local), store, overrides,
					offenders.getIfAvailable(), storeName(store), adaptiveLimits.getIfAvailable(AdaptiveConcurrencyLimits::none),
					clientIp.getIfAvailable(() -> ClientIp.DEFAULT), lists);
		}

		@Bean
		@ConditionalOnMissingBean
		OverrideFieldsAdvisor rateLimitOverrideFieldsAdvisor() {
			return new OverrideFieldsAdvisor();
		}

		@Bean
		@ConditionalOnMissingBean
		RateLimitsEndpointWebExtension rateLimitsEndpointWebExtension(RateLimitsEndpoint endpoint,
				ApplicationContext context) {
			return new RateLimitsEndpointWebExtension(endpoint, context instanceof ReactiveWebApplicationContext);
		}

		/** Lets the lists' writes take {@code "rules"} as a JSON array on Spring MVC. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
		@ConditionalOnClass(name = { "org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter",
				"tools.jackson.databind.json.JsonMapper" })
		static class ServletListsConfiguration {

			@Bean
			@ConditionalOnMissingBean
			ListsRequestBodyAdvice rateLimitListsRequestBodyAdvice() {
				return new ListsRequestBodyAdvice();
			}

		}

		/** Lets the lists' writes take {@code "rules"} as a JSON array on WebFlux. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
		@ConditionalOnClass(name = { "org.springframework.web.server.WebFilter", "tools.jackson.databind.json.JsonMapper" })
		static class ReactiveListsConfiguration {

			@Bean
			@ConditionalOnMissingBean
			ListsRequestBodyWebFilter rateLimitListsRequestBodyWebFilter() {
				return new ListsRequestBodyWebFilter();
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(HealthIndicator.class)
	@ConditionalOnEnabledHealthIndicator("ratelimit")
	static class HealthConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "ratelimitHealthIndicator")
		RateLimitHealthIndicator ratelimitHealthIndicator(ObjectProvider<StoreStatus> status, RateLimitStore store,
				ObjectProvider<RedisMemoryMonitor> memory, ObjectProvider<GlobalRegions> regions) {
			RedisMemoryMonitor monitor = memory.getIfUnique();
			GlobalRegions global = regions.getIfAvailable();
			return new RateLimitHealthIndicator(status.getIfUnique(StoreStatus::local), storeName(store),
					(monitor != null) ? monitor::readings : List::of, (global != null) ? global::peers : List::of);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	@ConditionalOnBean(MeterRegistry.class)
	static class MetricsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitMetrics rateLimitMetrics(MeterRegistry registry, RateLimitProperties properties,
				ObjectProvider<StoreStatus> status) {
			// looked up when the gauge is read: the limiter, which may be the status, needs this listener first
			return new RateLimitMetrics(registry, properties.getMetrics().getNearLimitThreshold(),
					() -> status.getIfUnique(StoreStatus::local).state());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(AdaptiveConcurrencyLimits.class)
		AdaptiveConcurrencyMetrics rateLimitAdaptiveConcurrencyMetrics(AdaptiveConcurrencyLimits adaptiveLimits) {
			return new AdaptiveConcurrencyMetrics(adaptiveLimits);
		}

		@Bean
		@ConditionalOnMissingBean
		@Conditional(OnLocalSyncRulesCondition.class)
		RateLimitSyncMetrics rateLimitSyncMetrics(MeterRegistry registry, ObjectProvider<LocalSyncViews> views) {
			// looked up when a gauge is read: the views need this listener when they are created
			return new RateLimitSyncMetrics(registry, () -> {
				LocalSyncViews current = views.getIfAvailable();
				return (current != null) ? current.store() : null;
			}, System::nanoTime);
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(GlobalRegions.class)
		RateLimitRegionMetrics rateLimitRegionMetrics(MeterRegistry registry, GlobalRegions regions) {
			return new RateLimitRegionMetrics(registry, regions.store());
		}

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(RedisMemoryMonitor.class)
		RedisMemoryMetrics rateLimitRedisMemoryMetrics(MeterRegistry registry, RedisMemoryMonitor monitor) {
			return new RedisMemoryMetrics(registry, monitor);
		}

	}


}
