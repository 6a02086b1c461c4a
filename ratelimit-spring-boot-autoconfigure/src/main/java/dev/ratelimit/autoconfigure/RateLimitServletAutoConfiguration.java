package dev.ratelimit.autoconfigure;

import java.time.Clock;

import dev.ratelimit.RateLimitHeadersWriter;
import dev.ratelimit.RateLimitRejectionHandler;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.ProblemDetailRejectionHandler;
import dev.ratelimit.web.RateLimitExceptionHandler;
import dev.ratelimit.web.RateLimitFilter;
import dev.ratelimit.web.StandardRateLimitHeadersWriter;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Applies the rules to every request of a servlet web application: the filter, the standard headers, the 429
 * problem+json rejection, and the translation of {@code RateLimitExceededException} into the same response.
 */
@AutoConfiguration(after = RateLimitAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({ DispatcherServlet.class, FilterRegistrationBean.class })
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitServletAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitHeadersWriter rateLimitHeadersWriter(RateLimitProperties properties, ObjectProvider<Clock> clock) {
		return new StandardRateLimitHeadersWriter(properties.getHeaders(), clock.getIfAvailable(Clock::systemUTC));
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitRejectionHandler rateLimitRejectionHandler() {
		return new ProblemDetailRejectionHandler();
	}

	@Bean
	@ConditionalOnMissingBean(name = "rateLimitFilterRegistration")
	FilterRegistrationBean<RateLimitFilter> rateLimitFilterRegistration(RateLimitRules rules, RateLimiter limiter,
			RateLimitHeadersWriter headersWriter, RateLimitRejectionHandler rejectionHandler,
			RateLimitProperties properties) {
		FilterRegistrationBean<RateLimitFilter> registration = new FilterRegistrationBean<>(
				new RateLimitFilter(rules, limiter, headersWriter, rejectionHandler));
		registration.setName("rateLimitFilter");
		registration.setOrder(properties.getFilter().getOrder());
		return registration;
	}

	@Bean
	@ConditionalOnMissingBean
	RateLimitExceptionHandler rateLimitExceptionHandler(RateLimitRejectionHandler rejectionHandler) {
		return new RateLimitExceptionHandler(rejectionHandler);
	}

}
