package dev.ratelimit.autoconfigure;

import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.aop.CurrentRequest;
import dev.ratelimit.aop.RateLimitedAspect;
import dev.ratelimit.aop.RateLimitedMethodsValidator;
import dev.ratelimit.aop.ReactiveCurrentRequest;
import dev.ratelimit.aop.ServletCurrentRequest;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RouteLookup;
import dev.ratelimit.web.reactive.ExchangeCurrentRequest;
import dev.ratelimit.web.reactive.ProblemDetailReactiveRejectionHandler;
import dev.ratelimit.web.reactive.ReactiveRateLimitExceptionHandler;
import dev.ratelimit.web.reactive.ReactiveRateLimitRejectionHandler;
import dev.ratelimit.web.reactive.ServerRouteLookup;
import dev.ratelimit.web.ServletRateLimitRequests;
import jakarta.servlet.http.HttpServletRequest;
import org.aspectj.lang.annotation.Aspect;
import reactor.core.publisher.Mono;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * Applies {@code @RateLimited} to Spring beans, and validates every annotation at start-up. With the Servlet API, a
 * call inside a servlet request uses its named rule's request key and adds its verdict to the request's; without it,
 * every call is outside a request. In a WebFlux application, a reactive call denied on subscription is answered like
 * a filter's denial ({@link ReactiveRateLimitExceptionHandler}).
 */
@AutoConfiguration(after = { RateLimitAutoConfiguration.class, RateLimitServletAutoConfiguration.class,
		RateLimitWebFluxAutoConfiguration.class, AopAutoConfiguration.class })
@ConditionalOnClass(Aspect.class)
@ConditionalOnBean(RateLimiter.class)
public final class RateLimitAopAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	RateLimitedAspect rateLimitedAspect(RateLimiter limiter, RateLimitRules rules,
			ConfigurableListableBeanFactory beanFactory, ObjectProvider<CurrentRequest> currentRequest,
			ObjectProvider<ReactiveCurrentRequest> reactiveCurrentRequest,
			ObjectProvider<AdmissionListener> admissionListeners,
			ObjectProvider<AdaptiveConcurrencyLimits> adaptiveLimits, ObjectProvider<RateLimitListener> listeners,
			ObjectProvider<CostSettlement> settlement) {
		RateLimitedAspect aspect = new RateLimitedAspect(limiter, rules, beanFactory,
				currentRequest.getIfAvailable(CurrentRequest::none), reactiveCurrentRequest.getIfAvailable(),
				AdmissionListener.composite(admissionListeners.orderedStream().toList()),
				adaptiveLimits.getIfAvailable(AdaptiveConcurrencyLimits::none),
				RateLimitListener.composite(listeners.orderedStream().toList()));
		aspect.setCostSettlement(settlement.getIfAvailable());
		return aspect;
	}

	@Bean
	static RateLimitedMethodsValidator rateLimitedMethodsValidator(ObjectProvider<RateLimitedAspect> aspect,
			ConfigurableListableBeanFactory beanFactory) {
		return new RateLimitedMethodsValidator(aspect, beanFactory);
	}

	/** The servlet request of the current thread, and the headers of its response when Spring MVC writes them. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ HttpServletRequest.class, ServletRequestAttributes.class })
	static class ServletCurrentRequestConfiguration {

		@Bean
		@ConditionalOnMissingBean
		CurrentRequest rateLimitCurrentRequest(ObjectProvider<RateLimitHeadersWriter> headersWriter,
				ObjectProvider<ServletRateLimitRequests> requests, ObjectProvider<ClientIp> clientIp) {
			// without the servlet auto-configuration (no Spring MVC), routes are unknown but client networks are not
			return new ServletCurrentRequest(headersWriter.getIfAvailable(), requests.getIfAvailable(
					() -> new ServletRateLimitRequests(clientIp.getIfAvailable(() -> ClientIp.DEFAULT),
							RouteLookup.matchedPattern())));
		}

	}

	/**
	 * In a WebFlux application: the exchange of a reactive call, from the Reactor context (where Spring's
	 * {@link ServerWebExchangeContextFilter} puts it), and the answer to a reactive call denied on subscription, the
	 * same 429 or 503, headers and problem+json as the filter's.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass({ Mono.class, DispatcherHandler.class })
	@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
	static class ReactiveConfiguration {

		@Bean
		@ConditionalOnMissingBean
		static ServerWebExchangeContextFilter serverWebExchangeContextFilter() {
			return new ServerWebExchangeContextFilter();
		}

		@Bean
		@ConditionalOnMissingBean
		ReactiveCurrentRequest rateLimitReactiveCurrentRequest(ObjectProvider<ClientIp> clientIp,
				ObjectProvider<ServerRouteLookup> routes, ObjectProvider<RateLimitHeaders> headers) {
			return new ExchangeCurrentRequest(clientIp.getIfAvailable(() -> ClientIp.DEFAULT),
					routes.getIfAvailable(() -> ServerRouteLookup.handlerMappings(List::of)), headers.getIfAvailable());
		}

		@Bean
		@ConditionalOnMissingBean
		ReactiveRateLimitExceptionHandler rateLimitReactiveExceptionHandler(
				ObjectProvider<ReactiveRateLimitRejectionHandler> rejectionHandler,
				ObjectProvider<RateLimitHeaders> headers) {
			return new ReactiveRateLimitExceptionHandler(
					rejectionHandler.getIfAvailable(ProblemDetailReactiveRejectionHandler::new), headers.getIfAvailable());
		}

	}

}
