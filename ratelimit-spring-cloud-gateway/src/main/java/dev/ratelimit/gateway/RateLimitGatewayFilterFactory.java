package dev.ratelimit.gateway;

import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.ClientIp;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.lists.ListDeniedException;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.observation.ReactorObservations;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.web.AdmissionSteps;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.reactive.ConnectionEventLoop;
import dev.ratelimit.web.reactive.RateLimitWebFilter;
import dev.ratelimit.web.reactive.ReactiveRateLimitRejectionHandler;
import dev.ratelimit.web.reactive.ServerRateLimitRequest;
import dev.ratelimit.web.reactive.ServerRouteLookup;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

import org.springframework.cloud.gateway.filter.GatewayFilter;
import org.springframework.cloud.gateway.filter.GatewayFilterChain;
import org.springframework.cloud.gateway.filter.factory.AbstractGatewayFilterFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.cloud.gateway.route.Route;
import org.springframework.cloud.gateway.support.HasRouteId;
import org.springframework.cloud.gateway.support.ServerWebExchangeUtils;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;

/**
 * The {@code RateLimit} route filter: applies named {@code ratelimit.*} rules to a gateway route as the starter's
 * servlet filter applies them to an application. Every named rule is checked in one atomic, non-blocking call, with
 * its own key, tiers and cost read from the exchange as the WebFlux filter reads them, or, with a {@code key-resolver}
 * (a gateway {@link KeyResolver} bean), for the key it resolves (a rule's own key when it resolves nothing); an admitted request gets the standard headers and is followed to its
 * end (concurrency leases released, {@code count-when} refunds on its status); a denied one gets the headers,
 * {@code Retry-After} and the problem+json body, with 429, or 503 when the denying rules say so (a rule whose store
 * is unavailable and that fails closed, {@code status: 503}), through the application's
 * {@link ReactiveRateLimitRejectionHandler} as the WebFlux filter answers.
 * <pre>
 * filters:
 *   - RateLimit=api,search          # rules, by name
 *   - name: RateLimit
 *     args:
 *       rules: api
 *       key-resolver: "#{&#64;userKeyResolver}"
 * </pre>
 */
public class RateLimitGatewayFilterFactory extends AbstractGatewayFilterFactory<RateLimitGatewayFilterFactory.Config> implements RateLimitObservationAware {

	private static final Log logger = LogFactory.getLog(RateLimitGatewayFilterFactory.class);

	private final RateLimiter limiter;

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private final GatewayRuleChecks checks;

	private final RateLimitHeaders headers;

	private final ReactiveRateLimitRejectionHandler rejectionHandler;

	private final AdmissionListener admissionListener;

	private final ClientIp clientIp;

	private final ServerRouteLookup routes;

	private @Nullable CostSettlement settlement;

	RateLimitGatewayFilterFactory(RateLimiter limiter, GatewayRuleChecks checks, RateLimitHeaders headers,
			ReactiveRateLimitRejectionHandler rejectionHandler, AdmissionListener admissionListener, ClientIp clientIp,
			ServerRouteLookup routes) {
		super(Config.class);
		this.routes = gatewayRoutes(routes);
		this.limiter = limiter;
		this.checks = checks;
		this.headers = headers;
		this.rejectionHandler = rejectionHandler;
		this.admissionListener = admissionListener;
		this.clientIp = clientIp;
	}

	/**
	 * Sets the observations of the decisions of the route filters (none by default).
	 * @param observations the observations
	 */
	@Override
	public void setObservations(RateLimitObservations observations) {
		this.observations = observations;
	}

	/**
	 * Sets what settles the cost of requests whose rules know it only after the response, e.g. from a header the
	 * upstream answers with ({@code settle: header:X-Usage-Tokens}; none by default: their estimates stand).
	 * @param settlement the cost settlement
	 */
	public void setCostSettlement(@Nullable CostSettlement settlement) {
		this.settlement = settlement;
	}

	@Override
	public List<String> shortcutFieldOrder() {
		return List.of("rules");
	}

	@Override
	public ShortcutType shortcutType() {
		return ShortcutType.GATHER_LIST;
	}

	@Override
	public GatewayFilter apply(Config config) {
		List<String> rules = List.copyOf(config.getRules());
		this.checks.validate("RateLimit filter of route '" + config.getRouteId() + "' (rules)", rules);
		KeyResolver keyResolver = config.getKeyResolver();
		return (exchange, chain) -> {
			Mono<String> key = (keyResolver != null) ? keyResolver.resolve(exchange).defaultIfEmpty("") : Mono.just("");
			return key.flatMap((resolved) -> checks(exchange, rules, resolved.isEmpty() ? null : resolved))
				.flatMap((checks) -> limit(exchange, chain, checks))
				// refused by the deny list before any rule: no store was called
				.onErrorResume(ListDeniedException.class,
						(listed) -> this.rejectionHandler.rejectListed(exchange, listed.getDenial()));
		};
	}

	/**
	 * Returns the route of a request as key {@code endpoint} sees it on a gateway route: the pattern of the route's
	 * {@code Path} predicate that matched (e.g. {@code /orders/**}), else the route's id. The application's handler
	 * mappings know no pattern here: the gateway's handler serves every route.
	 * @param application the application's lookup, for a request that no gateway route serves
	 * @return the lookup
	 */
	static ServerRouteLookup gatewayRoutes(ServerRouteLookup application) {
		return (exchange) -> {
			Route route = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_ROUTE_ATTR);
			if (route == null) {
				return application.route(exchange);
			}
			// a Path predicate of a route tried earlier may have matched the path before another predicate refused it
			String pattern = exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_PREDICATE_MATCHED_PATH_ATTR);
			boolean ours = route.getId()
				.equals(exchange.getAttribute(ServerWebExchangeUtils.GATEWAY_PREDICATE_MATCHED_PATH_ROUTE_ID_ATTR));
			return Mono.just((pattern != null && ours) ? pattern : route.getId());
		};
	}

	/**
	 * Makes the checks from the exchange, after resolving what they read and takes I/O to know (a principal, a reactive
	 * key).
	 */
	private Mono<List<RateLimitCheck>> checks(ServerWebExchange exchange, List<String> rules, @Nullable String key) {
		ServerRateLimitRequest request = new ServerRateLimitRequest(exchange, this.clientIp, this.routes);
		List<RateLimitCheck> checks;
		try {
			checks = this.checks.checks(rules, request, key);
		}
		catch (ListDeniedException ex) {
			return Mono.error(ex);
		}
		return request.needsResolution()
				? request.resolve().map((resolved) -> this.checks.checks(rules, resolved, key)) : Mono.just(checks);
	}

	private Mono<Void> limit(ServerWebExchange exchange, GatewayFilterChain chain, List<RateLimitCheck> checks) {
		if (checks.isEmpty()) {
			return chain.filter(exchange);
		}
		// the verdict completes on the store client's I/O thread: the request goes on on its connection's event loop
		return Mono.deferContextual((context) -> Mono.fromFuture(ConnectionEventLoop.continueOn(exchange,
				this.observations.evaluateAsync(this.limiter, checks, "gateway", ReactorObservations.current(context)))))
			.flatMap((verdict) -> {
			ServerHttpResponse response = exchange.getResponse();
			response.getHeaders().addAll(this.headers.of(verdict));
			if (!verdict.allowed()) {
				LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
				return this.rejectionHandler.reject(exchange, verdict);
			}
			boolean listened = this.admissionListener.wants(verdict);
			boolean settles = AdmissionSteps.settles(this.settlement, verdict, logger);
			if (!listened && !settles) {
				return chain.filter(exchange);
			}
			// ended on an event loop: its callbacks release, refund and settle without blocking
			Completion completion = Completion.nonBlocking();
			if (listened) {
				this.admissionListener.onAdmitted(verdict, completion);
			}
			if (settles) {
				AdmissionSteps.followSettlement(this.settlement, verdict, completion,
						RateLimitWebFilter.context(exchange), logger);
			}
			return chain.filter(exchange).doFinally((signal) -> ended(completion, signal, response.getStatusCode()));
		});
	}

	private static void ended(Completion completion, SignalType signal, @Nullable HttpStatusCode status) {
		Outcome outcome = switch (signal) {
			case ON_ERROR -> Outcome.FAILED;
			case CANCEL -> Outcome.ABORTED;
			default -> Outcome.COMPLETED;
		};
		completion.end(outcome, (status != null) ? status.value() : null, null);
	}

	/** The arguments of one route's {@code RateLimit} filter. */
	public static class Config implements HasRouteId {

		/** Names the rules of {@code ratelimit.rules} that the route applies. */
		private List<String> rules = new ArrayList<>();

		/** Resolves whose quota a request uses; {@code null} for each rule's own key. */
		private @Nullable KeyResolver keyResolver;

		private @Nullable String routeId;

		public List<String> getRules() {
			return this.rules;
		}

		public Config setRules(List<String> rules) {
			this.rules = rules;
			return this;
		}

		public @Nullable KeyResolver getKeyResolver() {
			return this.keyResolver;
		}

		public Config setKeyResolver(@Nullable KeyResolver keyResolver) {
			this.keyResolver = keyResolver;
			return this;
		}

		@Override
		public void setRouteId(String routeId) {
			this.routeId = routeId;
		}

		@Override
		public @Nullable String getRouteId() {
			return this.routeId;
		}

	}

}
