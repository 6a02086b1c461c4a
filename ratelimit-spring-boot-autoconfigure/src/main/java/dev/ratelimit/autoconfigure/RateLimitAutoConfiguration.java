package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.ClientIp;
import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveConcurrencyRule;
import dev.ratelimit.adaptive.NetflixConcurrencyLimiters;
import dev.ratelimit.key.RequestExpressions;
import dev.ratelimit.lease.LeaseExpiryLog;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.CountWhenRefund;
import dev.ratelimit.lists.AccessListRepository;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.rule.ResolutionFailures;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.web.reactive.ReactiveKeyResolver;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.web.util.pattern.PathPattern;

/**
 * Core auto-configuration of the rate limiter: the compiled rules, the store (in memory unless the Redis
 * auto-configuration provided one), the {@link RateLimiter}, and this instance's adaptive concurrency limits.
 */
@AutoConfiguration(after = RateLimitRedisAutoConfiguration.class)
@ConditionalOnClass(PathPattern.class)
@ConditionalOnBooleanProperty(name = "ratelimit.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RateLimitProperties.class)
public final class RateLimitAutoConfiguration {

	private static final Log logger = LogFactory.getLog(RateLimitAutoConfiguration.class);

	private static final Duration LEASE_EXPIRY_LOG_INTERVAL = Duration.ofSeconds(10);

	private static final String ACTUATOR_ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

	@Bean
	@ConditionalOnMissingBean
	RuleCompiler rateLimitRuleCompiler(BeanFactory beanFactory, ObjectProvider<RateLimitListener> listeners,
			Environment environment) {
		RequestExpressions expressions = new RequestExpressions(new BeanFactoryResolver(beanFactory));
		// the listeners are looked up at the first failure, so that none of them is created before the rules
		ResolutionFailures failures = new ResolutionFailures(
				SingletonSupplier.of(() -> RateLimitListener.composite(listeners.orderedStream().toList())),
				System::nanoTime);
		return new RuleCompiler(expressions, (name) -> keyResolverBean(beanFactory, name), failures,
				actuatorBasePath(environment));
	}

	/** The actuator's base path when Actuator is present, left out of rules that name no paths. */
	private static @Nullable String actuatorBasePath(Environment environment) {
		if (!ClassUtils.isPresent(ACTUATOR_ENDPOINT, RateLimitAutoConfiguration.class.getClassLoader())) {
			return null;
		}
		return environment.getProperty("management.endpoints.web.base-path", "/actuator");
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRules rateLimitRules(RateLimitProperties properties, RuleCompiler rateLimitRuleCompiler,
			Environment environment, ObjectProvider<RateLimitRulesCustomizer> customizers, RateLimitLists lists) {
		RateLimitPropertyNames.checkKnown(environment);
		customizers.orderedStream().forEach((customizer) -> customizer.customize(properties.getRules()));
		return rateLimitRuleCompiler.compile(properties).withLists(lists);
	}

	/**
	 * This instance's copy of the allow and deny lists ({@code ratelimit.lists.*}, and the entries made at runtime),
	 * which every adapter consults with the rules, without a store call.
	 */
	@Bean
	@ConditionalOnMissingBean
	RateLimitLists rateLimitLists(RateLimitProperties properties, ObjectProvider<RateLimitListener> listeners,
			ObjectProvider<Clock> clock) {
		// the listeners are looked up at the first listed request, so that none of them is created before the rules
		return ConfiguredLists.compile(properties.getLists(), clock.getIfAvailable(Clock::systemUTC),
				SingletonSupplier.of(() -> RateLimitListener.composite(listeners.orderedStream().toList())));
	}

	@Bean
	@ConditionalOnMissingBean
	AccessListRepository rateLimitAccessListRepository(RateLimitProperties properties, ObjectProvider<Clock> clock) {
		return AccessListRepository.inMemory(properties.getLists().getMaxEntries(), clock.getIfAvailable(Clock::systemUTC));
	}

	@Bean
	@ConditionalOnMissingBean
	ClientIp rateLimitClientIp(RateLimitProperties properties) {
		RateLimitProperties.ClientIp settings = properties.getClientIp();
		check("ratelimit.client-ip.ipv4-prefix-length", settings.getIpv4PrefixLength(), 32,
				"Set it to the leading bits of an IPv4 address that name a client, e.g. 32 (each address) or 24");
		check("ratelimit.client-ip.ipv6-prefix-length", settings.getIpv6PrefixLength(), 128,
				"Set it to the leading bits of an IPv6 address that name a client, e.g. 64 (a customer's network)"
						+ " or 56");
		return ClientIp.of(settings.getIpv4PrefixLength(), settings.getIpv6PrefixLength());
	}

	private static void check(String property, int prefixLength, int maximum, String fix) {
		if (prefixLength < 0 || prefixLength > maximum) {
			throw new InvalidRateLimitConfigurationException(property,
					"must be between 0 and " + maximum + " but was " + prefixLength, fix);
		}
	}

	@Bean
	@ConditionalOnMissingBean
	AdaptiveConcurrencyLimits rateLimitAdaptiveConcurrencyLimits(RateLimitProperties properties,
			RuleCompiler rateLimitRuleCompiler, ApplicationContext context) {
		List<AdaptiveConcurrencyRule> rules = rateLimitRuleCompiler.compileAdaptive(properties, context.getClassLoader());
		// the library is linked only when an adaptive rule exists
		return rules.isEmpty() ? AdaptiveConcurrencyLimits.none() : NetflixConcurrencyLimiters.limits(rules, System::nanoTime);
	}

	@Bean
	@ConditionalOnMissingBean
	RuleOverrideRepository rateLimitRuleOverrideRepository(RateLimitProperties properties) {
		return RuleOverrideRepository.inMemory(properties.getExceptions().getMaxPerRule());
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRulesReloader rateLimitRulesReloader(ConfigurableEnvironment environment, RuleCompiler rateLimitRuleCompiler,
			RateLimitRules rules, ObjectProvider<RateLimitRulesCustomizer> customizers) {
		return new RateLimitRulesReloader(environment, rateLimitRuleCompiler, rules,
				customizers.orderedStream().toList());
	}

	/** Reloads the rules on Spring Cloud's environment changes (e.g. after {@code /actuator/refresh}). */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(EnvironmentChangeEvent.class)
	static class EnvironmentChangeConfiguration {

		@Bean
		ApplicationListener<EnvironmentChangeEvent> rateLimitEnvironmentChangeListener(RateLimitRulesReloader reloader) {
			return (event) -> reloader.reload(event.getKeys());
		}

	}

	@Bean
	@ConditionalOnMissingBean(RateLimitStore.class)
	LocalRateLimitStore rateLimitStore(RateLimitProperties properties, ObjectProvider<Clock> clock) {
		if (properties.getStore() == RateLimitProperties.Store.REDIS) {
			throw new InvalidRateLimitConfigurationException("ratelimit.store",
					"'redis' is selected but there is no Lettuce RedisConnectionFactory bean",
					"Add spring-boot-starter-data-redis (with Lettuce) and configure spring.data.redis.*, or set"
							+ " ratelimit.store to auto or local");
		}
		properties.getRules().forEach((name, rule) -> {
			if (rule.getScope() == RateLimitProperties.Scope.GLOBAL) {
				throw new InvalidRateLimitConfigurationException("ratelimit.rules." + name + ".scope",
						"a global limit is counted in each region's Redis, and this instance keeps its limits in memory",
						"Use the Redis store (spring-boot-starter-data-redis), or scope: region or share");
			}
		});
		if (properties.getLocal().getMaximumEntries() < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.local.maximum-entries", "must be at least 1",
					"Set it to the number of subjects to keep in memory, e.g. 100000");
		}
		logger.info("Rate limits are kept in this instance's memory (ratelimit.store="
				+ properties.getStore().name().toLowerCase() + "); they are not shared between instances");
		return new LocalRateLimitStore(properties.getLocal().getMaximumEntries(), clock.getIfAvailable(Clock::systemUTC));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimiter rateLimiter(RateLimitStore rateLimitStore, ObjectProvider<RateLimitListener> listeners) {
		return new StoreRateLimiter(rateLimitStore, RateLimitListener.composite(listeners.orderedStream().toList()));
	}

	/** Releases the concurrency leases of every admitted request and call when it ends. */
	@Bean
	@ConditionalOnMissingBean
	RateLimitUsage rateLimitUsage(RateLimitRules rateLimitRules, RateLimitStore rateLimitStore,
			ObjectProvider<Clock> clock) {
		return new RateLimitUsage(rateLimitRules, rateLimitStore, clock.getIfAvailable(Clock::systemUTC));
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitLeaseRelease")
	LeaseRelease rateLimitLeaseRelease(RateLimiter rateLimiter) {
		return new LeaseRelease(rateLimiter);
	}

	/** Logs a WARN, at most every 10 s per rule, when expired concurrency leases are reclaimed. */
	@Bean
	@ConditionalOnMissingBean
	LeaseExpiryLog rateLimitLeaseExpiryLog() {
		return new LeaseExpiryLog(System::nanoTime, LEASE_EXPIRY_LOG_INTERVAL.toNanos());
	}

	/**
	 * Gives back the units of rules with {@code count-when} when the request or call ends with an outcome they do not
	 * count.
	 */
	@Bean
	@ConditionalOnMissingBean(name = "rateLimitCountWhenRefund")
	CountWhenRefund rateLimitCountWhenRefund(RateLimiter rateLimiter, RateLimitRules rateLimitRules) {
		return new CountWhenRefund(rateLimiter, rateLimitRules);
	}

	/**
	 * Settles the cost of requests whose rules know it only after the response ({@code settle}, or a {@code cost}
	 * settled from code).
	 */
	@Bean
	@ConditionalOnMissingBean
	CostSettlement rateLimitCostSettlement(RateLimiter rateLimiter, RateLimitRules rateLimitRules) {
		return new CostSettlement(rateLimiter, rateLimitRules);
	}

	private static KeyResolver keyResolverBean(BeanFactory beanFactory, String name) {
		Object bean;
		try {
			bean = beanFactory.getBean(name);
		}
		catch (NoSuchBeanDefinitionException ex) {
			throw new IllegalArgumentException("there is no KeyResolver bean named '" + name + "'");
		}
		if (bean instanceof KeyResolver resolver) {
			return resolver;
		}
		KeyResolver reactive = REACTIVE_PRESENT ? ReactiveKeyResolvers.adapt(name, bean) : null;
		if (reactive == null) {
			throw new IllegalArgumentException("bean '" + name + "' is not a KeyResolver (nor a ReactiveKeyResolver)");
		}
		return reactive;
	}

	private static final boolean REACTIVE_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RateLimitAutoConfiguration.class.getClassLoader());

	/** Adapts reactive key resolvers; loaded only when Reactor is present. */
	private static final class ReactiveKeyResolvers {

		static @Nullable KeyResolver adapt(String name, Object bean) {
			return (bean instanceof ReactiveKeyResolver resolver) ? ReactiveKeyResolver.adapt(name, resolver) : null;
		}

	}

}
