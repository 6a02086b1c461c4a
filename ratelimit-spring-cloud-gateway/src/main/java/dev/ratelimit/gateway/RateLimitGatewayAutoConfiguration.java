package dev.ratelimit.gateway;

import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitWebFluxAutoConfiguration;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.reactive.ReactiveRateLimitRejectionHandler;
import dev.ratelimit.web.reactive.ServerRouteLookup;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;

/**
 * The {@code ratelimit.*} rules on Spring Cloud Gateway routes: the {@code RateLimit} route filter, and the
 * {@code ratelimit} {@link org.springframework.cloud.gateway.filter.ratelimit.RateLimiter} for the gateway's
 * {@code RequestRateLimiter} filter. The latter is {@link Primary @Primary}: it is the {@code RequestRateLimiter}'s
 * default limiter, and the gateway's {@code RedisRateLimiter} stays available by name
 * ({@code rate-limiter: "#{@redisRateLimiter}"}).
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitWebFluxAutoConfiguration.class })
@ConditionalOnClass({ AbstractGatewayFilterFactory.class, ConfigurationService.class })
@ConditionalOnBean({ RateLimiter.class, RateLimitHeaders.class })
@ConditionalOnProperty(name = "spring.cloud.gateway.server.webflux.enabled", matchIfMissing = true)
public final class RateLimitGatewayAutoConfiguration {

	/** The bean name of the {@code RequestRateLimiter}'s limiter: {@code rate-limiter: "#{@ratelimit}"}. */
	public static final String RATE_LIMITER_BEAN = "ratelimit";

	@Bean(RATE_LIMITER_BEAN)
	@Primary
	@ConditionalOnMissingBean(name = RATE_LIMITER_BEAN)
	RateLimitGatewayRateLimiter ratelimit(RateLimiter limiter, RateLimitRules rules, RateLimitHeaders headers,
			ConfigurationService configurationService) {
		return new RateLimitGatewayRateLimiter(limiter, new GatewayRuleChecks(rules), headers, configurationService);
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitGatewayFilterFactory rateLimitGatewayFilterFactory(RateLimiter limiter, RateLimitRules rules,
			RateLimitHeaders headers, ReactiveRateLimitRejectionHandler rejectionHandler,
			ObjectProvider<AdmissionListener> admissionListeners, ObjectProvider<ClientIp> clientIp,
			ServerRouteLookup routes, ObjectProvider<CostSettlement> settlement) {
		List<AdmissionListener> listeners = admissionListeners.orderedStream().toList();
		RateLimitGatewayFilterFactory factory = new RateLimitGatewayFilterFactory(limiter,
				new GatewayRuleChecks(rules), headers, rejectionHandler, AdmissionListener.composite(listeners),
				clientIp.getIfAvailable(() -> ClientIp.DEFAULT), routes);
		factory.setCostSettlement(settlement.getIfAvailable());
		return factory;
	}

}
