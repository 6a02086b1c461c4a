package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.util.Map;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.client.RateLimitClientInterceptor;
import dev.ratelimit.client.RateLimitExchangeFilter;
import dev.ratelimit.client.RateLimitedClients;
import dev.ratelimit.client.RateLimitedWebClients;
import dev.ratelimit.rule.RateLimitRules;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.restclient.RestClientCustomizer;
import org.springframework.boot.restclient.RestTemplateCustomizer;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.support.WebClientHttpServiceGroupConfigurer;

/**
 * Auto-configuration of outbound limiting: {@link RateLimitedClients} (interceptors for {@code RestClient} and
 * {@code RestTemplate}) and, with WebFlux, {@link RateLimitedWebClients} (filters for {@code WebClient}); with
 * {@code ratelimit.outbound.rule}, customizers that apply the rule to every client built from Spring Boot's builders,
 * and with {@code ratelimit.outbound.groups.<group>}, HTTP service group configurers that apply a rule per group. Every
 * rule named there is checked at start-up.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnClass(ClientHttpRequestInterceptor.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@ConditionalOnBean({ RateLimiter.class, RateLimitRules.class })
public final class RateLimitOutboundAutoConfiguration {

	private static final String RULE = "ratelimit.outbound.rule";

	private static final String GROUPS = "ratelimit.outbound.groups";

	@Bean
	@ConditionalOnMissingBean
	RateLimitedClients rateLimitedClients(RateLimiter rateLimiter, RateLimitRules rateLimitRules,
			RateLimitProperties properties) {
		RateLimitProperties.Outbound outbound = properties.getOutbound();
		if (outbound.getMaxPause().isNegative() || outbound.getMaxPause().isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.outbound.max-pause", "must be positive",
					"Set it to the longest pause a provider's Retry-After may cause, e.g. 1m");
		}
		RateLimitedClients clients = new RateLimitedClients(rateLimiter, rateLimitRules,
				outbound.isPauseOnRetryAfter(), outbound.getMaxPause(), Clock.systemUTC(), System::nanoTime);
		if (outbound.getRule() != null) {
			check(clients, RULE, outbound.getRule());
		}
		for (Map.Entry<String, String> group : outbound.getGroups().entrySet()) {
			check(clients, GROUPS + "." + group.getKey(), group.getValue());
		}
		return clients;
	}

	private static void check(RateLimitedClients clients, String property, String rule) {
		try {
			clients.check(rule);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRateLimitConfigurationException(property, ex.getMessage(),
					"Name a rate rule defined under ratelimit.rules (gcra, token-bucket or leaky-bucket to wait with"
							+ " max-wait), e.g. with match.enabled: false so that it limits only outbound calls");
		}
	}

	/** Applies {@code ratelimit.outbound.rule} to every auto-configured {@code RestClient.Builder}. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RestClientCustomizer.class)
	@ConditionalOnProperty(RULE)
	static class RestClientsConfiguration {

		@Bean
		RestClientCustomizer rateLimitRestClientCustomizer(RateLimitedClients rateLimitedClients,
				RateLimitProperties properties) {
			RateLimitClientInterceptor interceptor = rateLimitedClients.interceptor(properties.getOutbound().getRule());
			return (builder) -> builder.requestInterceptor(interceptor);
		}

		@Bean
		RestTemplateCustomizer rateLimitRestTemplateCustomizer(RateLimitedClients rateLimitedClients,
				RateLimitProperties properties) {
			RateLimitClientInterceptor interceptor = rateLimitedClients.interceptor(properties.getOutbound().getRule());
			return (restTemplate) -> restTemplate.getInterceptors().add(interceptor);
		}

	}

	/** Applies {@code ratelimit.outbound.groups.<group>} to the {@code RestClient} of each HTTP service group. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(RestClientHttpServiceGroupConfigurer.class)
	static class RestClientGroupsConfiguration {

		@Bean
		RestClientHttpServiceGroupConfigurer rateLimitRestClientGroupConfigurer(RateLimitedClients rateLimitedClients,
				RateLimitProperties properties) {
			Map<String, String> rules = Map.copyOf(properties.getOutbound().getGroups());
			return (groups) -> rules.forEach((group, rule) -> groups.filterByName(group)
				.forEachClient((named, builder) -> builder.requestInterceptor(rateLimitedClients.interceptor(rule))));
		}

	}

	/** Filters for {@code WebClient}, when WebFlux is present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(WebClient.class)
	static class WebClientsConfiguration {

		@Bean
		@ConditionalOnMissingBean
		RateLimitedWebClients rateLimitedWebClients(RateLimitedClients rateLimitedClients) {
			return new RateLimitedWebClients(rateLimitedClients);
		}

		/** Applies {@code ratelimit.outbound.rule} to every auto-configured {@code WebClient.Builder}. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(WebClientCustomizer.class)
		@ConditionalOnProperty(RULE)
		static class WebClientCustomizerConfiguration {

			@Bean
			WebClientCustomizer rateLimitWebClientCustomizer(RateLimitedWebClients rateLimitedWebClients,
					RateLimitProperties properties) {
				RateLimitExchangeFilter filter = rateLimitedWebClients.filter(properties.getOutbound().getRule());
				return (builder) -> builder.filter(filter);
			}

		}

		/** Applies {@code ratelimit.outbound.groups.<group>} to the {@code WebClient} of each HTTP service group. */
		@Configuration(proxyBeanMethods = false)
		@ConditionalOnClass(WebClientHttpServiceGroupConfigurer.class)
		static class WebClientGroupsConfiguration {

			@Bean
			WebClientHttpServiceGroupConfigurer rateLimitWebClientGroupConfigurer(
					RateLimitedWebClients rateLimitedWebClients, RateLimitProperties properties) {
				Map<String, String> rules = Map.copyOf(properties.getOutbound().getGroups());
				return (groups) -> rules.forEach((group, rule) -> groups.filterByName(group)
					.forEachClient((named, builder) -> builder.filter(rateLimitedWebClients.filter(rule))));
			}

		}

	}

}
