package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.observation.ReactorObservations;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.RateLimitProblem;
import dev.ratelimit.web.reactive.ConnectionEventLoop;
import reactor.core.publisher.Mono;

import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.support.ConfigurationService;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.reactive.ServerWebExchangeContextFilter;

/**
 * The {@code ratelimit.*} rules as a Spring Cloud Gateway
 * {@link org.springframework.cloud.gateway.filter.ratelimit.RateLimiter} for the gateway's own
 * {@code RequestRateLimiter} filter: a route names its rules ({@code ratelimit.rules}, by default the rule named
 * like the route), the filter's {@code KeyResolver} says whose quota a request uses, and every named rule is checked
 * for that key in one atomic, non-blocking call ({@link RateLimiter#evaluateAsync}), with each rule's shadow mode and
 * {@code on-store-failure}. The {@link Response} carries the standard headers ({@link RateLimitHeaders}) and, when
 * denied, {@code Retry-After}; the filter copies them onto the response.
 * <p>
 * The {@code RequestRateLimiter} filter answers every denial with its own {@code status-code} (429) and an empty body,
 * and cannot follow a request to its end: for problem+json, a 503 when a rule fails closed, and concurrency rules,
 * use the {@code RateLimit} route filter ({@link RateLimitGatewayFilterFactory}).
 */
public class RateLimitGatewayRateLimiter extends AbstractRateLimiter<RateLimitGatewayRateLimiter.Config> implements RateLimitObservationAware {

	/** The prefix of this limiter's route arguments: {@code ratelimit.rules}. */
	public static final String CONFIGURATION_PROPERTY_NAME = "ratelimit";

	private final RateLimiter limiter;

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private final GatewayRuleChecks checks;

	private final RateLimitHeaders headers;

	/**
	 * @param limiter the limiter
	 * @param checks makes the checks of the rules a route names
	 * @param headers computes the headers of a verdict
	 * @param configurationService binds the route arguments
	 */
	RateLimitGatewayRateLimiter(RateLimiter limiter, GatewayRuleChecks checks, RateLimitHeaders headers,
			ConfigurationService configurationService) {
		super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
		this.limiter = limiter;
		this.checks = checks;
		this.headers = headers;
	}

	/** Binds a route's arguments, and fails when they name a rule that does not exist or cannot apply. */
	/**
	 * Sets the observations of the decisions of the gateway's rate limiter (none by default).
	 * @param observations the observations
	 */
	@Override
	public void setObservations(RateLimitObservations observations) {
		this.observations = observations;
	}

	@Override
	public void onApplicationEvent(FilterArgsEvent event) {
		super.onApplicationEvent(event);
		Config config = getConfig().get(event.getRouteId());
		if (config != null) {
			this.checks.validate("spring.cloud.gateway.server.webflux.routes[" + event.getRouteId() + "].filters"
					+ " (RequestRateLimiter ratelimit.rules)", config.getRules());
		}
	}

	@Override
	public Mono<Response> isAllowed(String routeId, String id) {
		Config config = getConfig().get(routeId);
		List<String> rules = (config != null) ? config.getRules() : List.of(routeId);
		List<RateLimitCheck> checks = this.checks.checks(rules, id);
		if (checks.isEmpty()) {
			return Mono.error(new IllegalStateException("Route '" + routeId + "' names no rule of ratelimit.rules:"
					+ " set the filter argument ratelimit.rules, or declare ratelimit.rules." + routeId));
		}
		// the verdict completes on the store client's I/O thread: the request goes on on its connection's event loop
		// when the exchange is in the Reactor context (ServerWebExchangeContextFilter, auto-configured)
		return Mono.deferContextual((context) -> {
			CompletableFuture<Verdict> verdict = this.observations.evaluateAsync(this.limiter, checks, "gateway",
					ReactorObservations.current(context));
			return Mono.fromFuture(ServerWebExchangeContextFilter.getExchange(context)
				.map((exchange) -> ConnectionEventLoop.continueOn(exchange, verdict))
				.orElse(verdict));
		}).map(this::response);
	}

	private Response response(Verdict verdict) {
		// a denied verdict holds no lease (but a failed Redis Cluster refund may leave one)
		if (!verdict.allowed()) {
			LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
		}
		HttpHeaders headers = this.headers.of(verdict);
		Long retryAfter = verdict.allowed() ? null : RateLimitProblem.of(verdict, "/").retryAfter();
		if (retryAfter != null) {
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(retryAfter));
		}
		Map<String, String> flat = new LinkedHashMap<>();
		headers.forEach((name, values) -> flat.put(name, String.join(", ", values)));
		return new Response(verdict.allowed(), flat);
	}

	/** The arguments of one route. */
	public static class Config {

		/** Names the rules of {@code ratelimit.rules} that the route applies. */
		private List<String> rules = new ArrayList<>();

		public List<String> getRules() {
			return this.rules;
		}

		public Config setRules(List<String> rules) {
			this.rules = rules;
			return this;
		}

	}

}
