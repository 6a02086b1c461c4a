package dev.ratelimit.autoconfigure;

import dev.ratelimit.RateLimitHeadersWriter;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.aop.RateLimitedMethodsValidator;
import dev.ratelimit.rule.RateLimitRules;
import org.aspectj.lang.annotation.Aspect;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Applies {@code @RateLimited} to Spring beans, and validates every annotation at start-up.
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitServletAutoConfiguration.class,
		AopAutoConfiguration.class })
@ConditionalOnClass(Aspect.class)
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitAopAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitedAspect rateLimitedAspect(RateLimiter limiter, RateLimitRules rules,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<RateLimitHeadersWriter> headersWriter) {
		return new RateLimitedAspect(limiter, rules, beanFactory, headersWriter.getIfAvailable());
	}

	@Bean
	static RateLimitedMethodsValidator rateLimitedMethodsValidator(ObjectProvider<RateLimitedAspect> aspect,
			ConfigurableListableBeanFactory beanFactory) {
		return new RateLimitedMethodsValidator(aspect, beanFactory);
	}

}
