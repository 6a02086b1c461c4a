package dev.ratelimit.autoconfigure;

import java.time.Clock;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.ClientIp;
import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.web.HandlerMappingRoutes;
import dev.ratelimit.web.ProblemDetailRejectionHandler;
import dev.ratelimit.web.RateLimitExceptionHandler;
import dev.ratelimit.web.RateLimitFilter;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.RateLimitRejectionHandler;
import dev.ratelimit.web.RouteLookup;
import dev.ratelimit.web.ServletRateLimitRequests;
import dev.ratelimit.web.StandardRateLimitHeadersWriter;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.handler.HandlerMappingIntrospector;

/**
 * Applies the rules to every request of a servlet web application: the filter, the standard headers, the 429
 * problem+json rejection, the translation of {@code RateLimitExceededException} into the same response, and a WARN
 * when rules use the client IP while forwarded headers are believed from any address.
 * <p>
 * Without Spring Security's filter chain one filter applies every rule, in one call. With it, one filter before it
 * applies the rules of {@link RulePhase#BEFORE_AUTHENTICATION} (so that requests it rejects count) and one after it
 * those of {@link RulePhase#AFTER_AUTHENTICATION} (so that {@code user} keys see the principal).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, FilterRegistrationBean.class })
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitServletAutoConfiguration {

	/** The bean name of Spring Security's filter chain. */
	private static final String SECURITY_FILTER_CHAIN = "springSecurityFilterChain";

	/** Spring Boot's default of {@code spring.security.filter.order}. */
	private static final int DEFAULT_SECURITY_FILTER_ORDER = -100;

	@Bean
	@ConditionalOnMissingBean
	RateLimitHeadersWriter rateLimitHeadersWriter(RateLimitProperties properties, ObjectProvider<Clock> clock) {
		return new StandardRateLimitHeadersWriter(
				RateLimitHeadersFactory.headers(properties, clock.getIfAvailable(Clock::systemUTC)));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRejectionHandler rateLimitRejectionHandler() {
		return new ProblemDetailRejectionHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitRejectionHandler rejectionHandler) {
		return new RateLimitExceptionHandler(rejectionHandler);
	}

	@Bean
	@ConditionalOnMissingBean
	ServletRateLimitRequests rateLimitServletRequests(ClientIp clientIp,
			ObjectProvider<HandlerMappingIntrospector> introspector) {
		// the handler mappings are looked up at the first request that needs a route, once Spring MVC has them all
		SingletonSupplier<RouteLookup> routes = SingletonSupplier.of(() -> {
			HandlerMappingIntrospector mappings = introspector.getIfAvailable();
			return (mappings != null) ? new HandlerMappingRoutes(mappings::getHandlerMappings)
					: RouteLookup.matchedPattern();
		});
		return new ServletRateLimitRequests(clientIp, (request) -> routes.obtain().route(request));
	}

	@Bean
	ForwardedHeadersCheck rateLimitForwardedHeadersCheck(Environment environment, RateLimitProperties properties) {
		return new ForwardedHeadersCheck(environment, properties);
	}

	private static FilterRegistrationBean<RateLimitFilter> registration(String name, int order,
			@Nullable RulePhase phase, RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler, ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
			ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
			ServletRateLimitRequests requests) {
		RateLimitFilter filter = new RateLimitFilter(rules, limiter, headersWriter, rejectionHandler, phase,
				adaptiveLimits.getIfAvailable(AdaptiveConcurrencyLimits::none),
				AdmissionListener.composite(admissionListeners.orderedStream().toList()), requests);
		filter.setCostSettlement(settlement.getIfAvailable());
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(filter);
		registration.setName(name);
		registration.setOrder(order);
		return registration;
	}

	/** Without Spring Security's filter chain: one filter applies every rule, so they are decided in one call. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(name = SECURITY_FILTER_CHAIN)
	static class SingleFilterConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitFilterRegistration")
		FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(RateLimitRules rules, RateLimiter limiter,
				RateLimitHeadersWriter headersWriter, RateLimitRejectionHandler rejectionHandler,
				RateLimitProperties properties, ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ServletRateLimitRequests requests) {
			return registration("rateLimitFilter", properties.getFilter().getOrder(), null, rules, limiter,
					headersWriter, rejectionHandler, adaptiveLimits, admissionListeners, settlement, requests);
		}

	}

	/**
	 * With Spring Security's filter chain: the rules of each phase where their key exists, one filter before the chain
	 * and one after it.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.security.web.SecurityFilterChain")
	@ConditionalOnBean(name = SECURITY_FILTER_CHAIN)
	static class SecurityFilterChainConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitBeforeAuthenticationFilterRegistration")
		FilterRegistrationBean<RateLimitFilter> rateLimitBeforeAuthenticationFilterRegistration(RateLimitRules rules,
				RateLimiter limiter, RateLimitHeadersWriter headersWriter, RateLimitRejectionHandler rejectionHandler,
				RateLimitProperties properties, Environment environment,
				ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ServletRateLimitRequests requests) {
			return registration("rateLimitBeforeAuthenticationFilter", beforeAuthenticationOrder(properties, environment),
					RulePhase.BEFORE_AUTHENTICATION, rules, limiter, headersWriter, rejectionHandler, adaptiveLimits,
					admissionListeners, settlement, requests);
		}

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitFilterRegistration")
		FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(RateLimitRules rules, RateLimiter limiter,
				RateLimitHeadersWriter headersWriter, RateLimitRejectionHandler rejectionHandler,
				RateLimitProperties properties, ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ServletRateLimitRequests requests) {
			return registration("rateLimitFilter", properties.getFilter().getOrder(), RulePhase.AFTER_AUTHENTICATION,
					rules, limiter, headersWriter, rejectionHandler, adaptiveLimits, admissionListeners, settlement, requests);
		}

		private static int beforeAuthenticationOrder(RateLimitProperties properties, Environment environment) {
			int securityOrder = environment.getProperty("spring.security.filter.order", Integer.class,
					DEFAULT_SECURITY_FILTER_ORDER);
			Integer configured = properties.getFilter().getBeforeAuthenticationOrder();
			if (configured == null) {
				return securityOrder - 10;
			}
			if (configured >= securityOrder) {
				throw new InvalidRateLimitConfigurationException("ratelimit.filter.before-authentication-order",
						"must be below Spring Security's filter order (spring.security.filter.order=" + securityOrder
								+ ") but was " + configured,
						"Remove it to run 10 before the security filter chain, or set it below " + securityOrder);
			}
			return configured;
		}

	}

}
