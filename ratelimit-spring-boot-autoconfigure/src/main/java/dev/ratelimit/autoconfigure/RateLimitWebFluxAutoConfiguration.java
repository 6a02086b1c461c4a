package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.ClientIp;
import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.reactive.ProblemDetailReactiveRejectionHandler;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.reactive.ReactiveRateLimitRejectionHandler;
import dev.ratelimit.web.reactive.ServerRouteLookup;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.WebFilter;

/**
 * Applies the rules to every request of a reactive (WebFlux) web application, on the non-blocking path of the engine:
 * the {@link RateLimitWebFilter}, the standard headers ({@link RateLimitHeaders}) and the 429/503 problem+json
 * rejection ({@link ReactiveRateLimitRejectionHandler}), exactly as on the servlet stack.
 * <p>
 * Without Spring Security's {@code WebFilterChainProxy} one filter applies every rule, in one call. With it, one
 * filter before it applies the rules of {@link RulePhase#BEFORE_AUTHENTICATION} and one after it those of
 * {@link RulePhase#AFTER_AUTHENTICATION} (so that {@code user} keys see the principal).
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class,
		afterName = "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration")
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({ WebFilter.class, DispatcherHandler.class, Mono.class })
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitWebFluxAutoConfiguration {

	/** Spring Security's {@code WebFilterChainProxy}, the reactive security filter chain. */
	private static final String SECURITY_FILTER_CHAIN = "org.springframework.security.web.server.WebFilterChainProxy";

	/** The order of Spring Security's {@code WebFilterChainProxy} ({@code WebFluxSecurityConfiguration}). */
	private static final int SECURITY_FILTER_ORDER = -100;

	@Bean
	@ConditionalOnMissingBean
	RateLimitHeaders rateLimitHeaders(RateLimitProperties properties, ObjectProvider<Clock> clock) {
		return RateLimitHeadersFactory.headers(properties, clock.getIfAvailable(Clock::systemUTC));
	}

	@Bean
	@ConditionalOnMissingBean
	ReactiveRateLimitRejectionHandler reactiveRateLimitRejectionHandler() {
		return new ProblemDetailReactiveRejectionHandler();
	}

	@Bean
	@ConditionalOnMissingBean
	ServerRouteLookup rateLimitServerRoutes(ObjectProvider<DispatcherHandler> dispatcherHandler) {
		// the handler mappings are read at each lookup, once the DispatcherHandler has them all
		return ServerRouteLookup.handlerMappings(() -> {
			DispatcherHandler handler = dispatcherHandler.getIfAvailable();
			List<HandlerMapping> mappings = (handler != null) ? handler.getHandlerMappings() : null;
			return (mappings != null) ? mappings : List.of();
		});
	}

	private static RateLimitWebFilter filter(@Nullable RulePhase phase, int order, RateLimitRules rules,
			RateLimiter limiter, RateLimitHeaders headers, ReactiveRateLimitRejectionHandler rejectionHandler,
			ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
			ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
			ClientIp clientIp, ServerRouteLookup routes) {
		RateLimitWebFilter filter = new RateLimitWebFilter(rules, limiter, headers, rejectionHandler, phase,
				adaptiveLimits.getIfAvailable(AdaptiveConcurrencyLimits::none),
				AdmissionListener.composite(admissionListeners.orderedStream().toList()), clientIp, routes, order);
		filter.setCostSettlement(settlement.getIfAvailable());
		return filter;
	}

	/** Without Spring Security: one filter applies every rule, so they are decided in one call. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingBean(type = SECURITY_FILTER_CHAIN)
	static class SingleFilterConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitWebFilter")
		RateLimitWebFilter rateLimitWebFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeaders headers,
				ReactiveRateLimitRejectionHandler rejectionHandler, RateLimitProperties properties,
				ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ClientIp clientIp, ServerRouteLookup routes) {
			return filter(null, properties.getFilter().getOrder(), rules, limiter, headers, rejectionHandler,
					adaptiveLimits, admissionListeners, settlement, clientIp, routes);
		}

	}

	/** With Spring Security: the rules of each phase where their key exists, one filter before it and one after. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = SECURITY_FILTER_CHAIN)
	@ConditionalOnBean(type = SECURITY_FILTER_CHAIN)
	static class SecurityFilterChainConfiguration {

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitBeforeAuthenticationWebFilter")
		RateLimitWebFilter rateLimitBeforeAuthenticationWebFilter(RateLimitRules rules, RateLimiter limiter,
				RateLimitHeaders headers, ReactiveRateLimitRejectionHandler rejectionHandler,
				RateLimitProperties properties, ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ClientIp clientIp, ServerRouteLookup routes) {
			Integer configured = properties.getFilter().getBeforeAuthenticationOrder();
			if (configured != null && configured >= SECURITY_FILTER_ORDER) {
				throw new InvalidRateLimitConfigurationException("ratelimit.filter.before-authentication-order",
						"must be below the order of Spring Security's WebFilterChainProxy (" + SECURITY_FILTER_ORDER
								+ ") but was " + configured,
						"Remove it to run 10 before the security filter chain, or set it below "
								+ SECURITY_FILTER_ORDER);
			}
			return filter(RulePhase.BEFORE_AUTHENTICATION,
					(configured != null) ? configured : SECURITY_FILTER_ORDER - 10, rules, limiter, headers,
					rejectionHandler, adaptiveLimits, admissionListeners, settlement, clientIp, routes);
		}

		@Bean
		@ConditionalOnMissingBean(name = "rateLimitWebFilter")
		RateLimitWebFilter rateLimitWebFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeaders headers,
				ReactiveRateLimitRejectionHandler rejectionHandler, RateLimitProperties properties,
				ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits,
				ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<CostSettlement> settlement,
				ClientIp clientIp, ServerRouteLookup routes) {
			return filter(RulePhase.AFTER_AUTHENTICATION, properties.getFilter().getOrder(), rules, limiter, headers,
					rejectionHandler, adaptiveLimits, admissionListeners, settlement, clientIp, routes);
		}

	}

}
