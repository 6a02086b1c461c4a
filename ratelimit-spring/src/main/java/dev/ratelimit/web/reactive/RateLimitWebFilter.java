package dev.ratelimit.web.reactive;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.ClientIp;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.observation.ReactorObservations;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMatcher;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.rule.SettleResponse;
import dev.ratelimit.web.AdmissionSteps;
import dev.ratelimit.web.RateLimitContext;
import dev.ratelimit.web.RateLimitHeaders;
import dev.ratelimit.web.WaitingRoom;
import io.micrometer.observation.Observation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.ErrorResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.DisconnectedClientHelper;

/**
 * Applies the configured rules to every WebFlux request, as the servlet filter does, without ever blocking: a place
 * under each matching adaptive concurrency limit first, then match, resolve keys (what needs I/O, such as the
 * principal, the route or a {@link ReactiveKeyResolver}, is resolved first, for the rules that match only), one
 * {@link RateLimiter#evaluateAsync} call for all matching rules, write the headers ({@link RateLimitHeaders}), then
 * continue or reject ({@link ReactiveRateLimitRejectionHandler}).
 * <p>
 * A request admitted with a {@link Verdict#delay() delay} (a rule's {@code max-wait}) waits for its slot with
 * {@link Mono#delay}; a client that goes away while it waits cancels the reservation. An admitted request is followed
 * to its end (completed, failed or cancelled) by a {@link Completion#nonBlocking() non-blocking} {@link Completion}:
 * its concurrency leases are released with {@link RateLimiter#releaseAsync} and the units that {@code count-when}
 * does not count refunded with {@link RateLimiter#refundAsync}, and the cost of rules settled after the response
 * settled with {@link RateLimiter#settleAsync} (see {@link RateLimitContext#from}). A failing store, resolver or listener never fails the
 * request: it is admitted unchecked and the failure logged.
 */
public class RateLimitWebFilter implements WebFilter, Ordered, RateLimitObservationAware {

	/** Exchange attribute holding the {@link Verdict} of the request, for the application. */
	public static final String VERDICT_ATTRIBUTE = RateLimitWebFilter.class.getName() + ".verdict";

	private static final String CALLER = "webflux";

	/** How many times the keys of one request may need I/O in turn (a composite of reactive resolvers). */
	private static final int MAX_RESOLUTIONS = 8;

	private static final Log logger = LogFactory.getLog(RateLimitWebFilter.class);

	private final RateLimitRules rules;

	private final RuleMatcher matcher;

	private final RateLimiter limiter;

	private final RateLimitHeaders headers;

	private final ReactiveRateLimitRejectionHandler rejectionHandler;

	private final @Nullable RulePhase phase;

	private final AdaptiveConcurrencyLimits adaptiveLimits;

	private final AdmissionListener admissionListener;

	private final ClientIp clientIp;

	private final ServerRouteLookup routes;

	private final int order;

	private final WaitingRoom waitingRoom = new WaitingRoom();

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private @Nullable CostSettlement settlement;

	/**
	 * Creates a filter.
	 * @param rules the rules
	 * @param limiter the limiter
	 * @param headers computes the rate limit headers
	 * @param rejectionHandler answers denied requests
	 * @param phase the phase whose rules it applies, or {@code null} for every rule
	 * @param adaptiveLimits the adaptive concurrency limits
	 * @param admissionListener told of every request a verdict of this filter admitted
	 * @param clientIp masks remote addresses into client networks
	 * @param routes finds the route template of a request's handler
	 * @param order the filter's order among the application's {@code WebFilter}s
	 */
	public RateLimitWebFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeaders headers,
			ReactiveRateLimitRejectionHandler rejectionHandler, @Nullable RulePhase phase,
			AdaptiveConcurrencyLimits adaptiveLimits, AdmissionListener admissionListener, ClientIp clientIp,
			ServerRouteLookup routes, int order) {
		this.rules = rules;
		this.matcher = new RuleMatcher(rules);
		this.limiter = limiter;
		this.headers = headers;
		this.rejectionHandler = rejectionHandler;
		this.phase = phase;
		this.adaptiveLimits = adaptiveLimits;
		this.admissionListener = admissionListener;
		this.clientIp = clientIp;
		this.routes = routes;
		this.order = order;
	}

	/**
	 * Sets the observations of this filter's decisions and waits (none by default).
	 * @param observations the observations
	 */
	@Override
	public void setObservations(RateLimitObservations observations) {
		this.observations = observations;
	}

	/**
	 * Sets what settles the cost of requests whose rules know it only after the response (none by default: their
	 * estimates stand).
	 * @param settlement the cost settlement
	 */
	public void setCostSettlement(@Nullable CostSettlement settlement) {
		this.settlement = settlement;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	/**
	 * Records the verdict of a filter in the exchange ({@link #VERDICT_ATTRIBUTE}), merged with the verdict already
	 * recorded by an earlier filter for the same request.
	 * @param exchange the exchange
	 * @param verdict the verdict of the latest filter
	 * @return the merged verdict, which the headers describe
	 */
	public static Verdict recordVerdict(ServerWebExchange exchange, Verdict verdict) {
		Verdict merged = (exchange.getAttribute(VERDICT_ATTRIBUTE) instanceof Verdict earlier) ? earlier.merge(verdict)
				: verdict;
		exchange.getAttributes().put(VERDICT_ATTRIBUTE, merged);
		return merged;
	}

	/** Returns how many requests of a rule wait for their slot in this filter now. */
	public int waiting(String rule) {
		return this.waitingRoom.waiting(rule);
	}

	@Override
	public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
		String seen = RateLimitWebFilter.class.getName() + "." + ((this.phase != null) ? this.phase.name() : "ALL");
		if (exchange.getAttributes().putIfAbsent(seen, Boolean.TRUE) != null) {
			return chain.filter(exchange);
		}
		ServerRateLimitRequest view = new ServerRateLimitRequest(exchange, this.clientIp, this.routes);
		AdaptiveAdmission admission = AdmissionSteps.admit(this.adaptiveLimits, view, this.phase, logger);
		if (admission != null && admission.denial() != null) {
			// denied before any rate rule is evaluated, so it consumes no quota
			return this.rejectionHandler.rejectOverloaded(exchange, admission.denial());
		}
		return checks(view, 0).onErrorResume((ex) -> {
			logger.error("Rate limiting failed; the request is admitted unchecked", ex);
			return Mono.just(NOT_MATCHED);
		}).flatMap((matched) -> {
			ListDenial listed = matched.denial();
			if (listed != null) {
				// refused by the deny list before any rule: no quota was consumed, no store was called
				if (admission != null) {
					admission.release(Outcome.REJECTED);
				}
				return this.rejectionHandler.rejectListed(exchange, listed);
			}
			return decide(exchange, chain, matched.checks(), admission);
		});
	}

	private static final RuleMatcher.Matched NOT_MATCHED = new RuleMatcher.Matched(List.of(), null);

	/** Finds the checks of the request, resolving first what the matching rules need that takes I/O. */
	private Mono<RuleMatcher.Matched> checks(ServerRateLimitRequest view, int resolutions) {
		RuleMatcher.Matched matched = this.matcher.match(view, this.phase);
		if (!view.needsResolution() || resolutions >= MAX_RESOLUTIONS) {
			return Mono.just(matched);
		}
		return view.resolve().flatMap((resolved) -> checks(resolved, resolutions + 1));
	}

	private Mono<Void> decide(ServerWebExchange exchange, WebFilterChain chain, List<RateLimitCheck> checks,
			@Nullable AdaptiveAdmission admission) {
		if (checks.isEmpty()) {
			return proceed(exchange, chain, null, admission);
		}
		WaitingRoom.Places places = this.waitingRoom.enter(checks, this::rule);
		return evaluate(places, exchange).flatMap((verdict) -> {
			if (verdict == NO_VERDICT) {
				places.leave();
				return proceed(exchange, chain, null, admission);
			}
			return handle(exchange, chain, verdict, admission, places);
		});
	}

	/** Stands for a failed evaluation, after which the request is admitted unchecked. */
	private static final Verdict NO_VERDICT = new Verdict(List.of(), List.of());

	/** Evaluates without blocking; a verdict that arrives after the client went away gives back what it holds. */
	private Mono<Verdict> evaluate(WaitingRoom.Places places, ServerWebExchange exchange) {
		return Mono.deferContextual((context) -> {
			CompletableFuture<Verdict> evaluation;
			try {
				evaluation = this.observations.evaluateAsync(this.limiter, places.checks(), CALLER,
						ReactorObservations.current(context));
			}
			catch (RuntimeException ex) {
				evaluation = CompletableFuture.failedFuture(ex);
			}
			CompletableFuture<Verdict> decided = evaluation;
			// the verdict completes on the store client's I/O thread (Lettuce's event loop): the request goes on on
			// its own connection's event loop, so that handlers never delay the replies of other requests' store
			// calls, and the server sees its response written where it reads the connection's next request
			CompletableFuture<Verdict> continued = ConnectionEventLoop.continueOn(exchange, decided);
			return Mono.fromFuture(continued, true).doOnCancel(() -> decided.thenAccept((verdict) -> {
				places.leave();
				abandon(verdict);
			}));
		}).onErrorResume((ex) -> {
			// the limiter must never turn a request into a 500 (a failing store or resolver): admit it, loudly
			logger.error("Rate limiting failed; the request is admitted unchecked", ex);
			return Mono.just(NO_VERDICT);
		});
	}

	private Mono<Void> handle(ServerWebExchange exchange, WebFilterChain chain, Verdict verdict,
			@Nullable AdaptiveAdmission admission, WaitingRoom.Places places) {
		Verdict merged = recordVerdict(exchange, verdict);
		AdmissionSteps.logShadowDenials(logger, verdict, exchange.getRequest().getMethod().name(),
				exchange.getRequest().getPath().value());
		exchange.getResponse().getHeaders().putAll(this.headers.of(merged));
		if (!verdict.allowed()) {
			places.leave();
			if (admission != null) {
				admission.release(Outcome.REJECTED);
			}
			LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
			return this.rejectionHandler.reject(exchange, merged);
		}
		if (verdict.delay().isZero()) {
			places.leave();
			return proceed(exchange, chain, verdict, admission);
		}
		// waits for its slot without a thread; a client that goes away meanwhile gives the slot back
		return Mono.deferContextual((context) -> {
			Observation wait = this.observations.startWait(verdict, CALLER, ReactorObservations.current(context));
			return Mono.delay(verdict.delay()).doOnSuccess((slot) -> wait.stop()).doOnCancel(() -> {
				wait.error(new CancellationException("the request stopped waiting for its slot"));
				wait.stop();
			});
		}).doOnCancel(() -> {
			places.leave();
			if (admission != null) {
				admission.release(Outcome.REJECTED);
			}
			abandon(verdict);
		}).then(Mono.defer(() -> {
			places.leave();
			return proceed(exchange, chain, verdict, admission);
		}));
	}

	/** Gives back what the verdict of a request that will not proceed holds: its reservation and its leases. */
	private void abandon(Verdict verdict) {
		if (!verdict.delay().isZero()) {
			CompletableFuture<Void> cancelled;
			try {
				cancelled = this.limiter.cancelAsync(verdict);
			}
			catch (RuntimeException ex) {
				cancelled = CompletableFuture.failedFuture(ex);
			}
			cancelled.whenComplete((done, ex) -> {
				if (ex != null) {
					logger.warn("Could not cancel the reservation of a request that stopped waiting; its slot stays"
							+ " taken", ex);
				}
			});
		}
		List<Lease> leases = verdict.leases();
		if (!leases.isEmpty()) {
			LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
		}
	}

	/** Lets an admitted request proceed, followed to its end by whoever needs to know. */
	private Mono<Void> proceed(ServerWebExchange exchange, WebFilterChain chain, @Nullable Verdict verdict,
			@Nullable AdaptiveAdmission admission) {
		boolean listened = verdict != null && AdmissionSteps.wanted(this.admissionListener, verdict, logger);
		boolean settles = verdict != null && AdmissionSteps.settles(this.settlement, verdict, logger);
		if (admission == null && !listened && !settles) {
			return chain.filter(exchange);
		}
		Completion completion = Completion.nonBlocking();
		if (admission != null) {
			completion.onEnd(admission::release);
		}
		if (listened) {
			AdmissionSteps.admitted(this.admissionListener, verdict, completion, logger);
		}
		if (settles) {
			AdmissionSteps.followSettlement(this.settlement, verdict, completion, context(exchange), logger);
		}
		return chain.filter(exchange)
			.doOnSuccess((done) -> completion.end(Outcome.COMPLETED, status(exchange), null))
			.doOnError((ex) -> completion.end(
					DisconnectedClientHelper.isClientDisconnectedException(ex) ? Outcome.ABORTED : Outcome.FAILED,
					(ex instanceof ErrorResponse error) ? error.getStatusCode().value() : 500, ex))
			.doOnCancel(() -> completion.end(Outcome.ABORTED, status(exchange), null));
	}

	/**
	 * Returns the request's {@link RateLimitContext}, made with a view of its response when it has none yet (shared
	 * with the gateway's filter).
	 * @param exchange the exchange
	 * @return the context
	 */
	public static RateLimitContext context(ServerWebExchange exchange) {
		return (RateLimitContext) exchange.getAttributes()
			.computeIfAbsent(RateLimitContext.ATTRIBUTE, (name) -> new RateLimitContext(() -> new SettleResponse(
					status(exchange), HttpHeaders.readOnlyHttpHeaders(exchange.getResponse().getHeaders()))));
	}

	private static Integer status(ServerWebExchange exchange) {
		HttpStatusCode status = exchange.getResponse().getStatusCode();
		return (status != null) ? status.value() : 200;
	}

	private @Nullable RateLimitRule rule(String name) {
		return this.rules.get(name).orElse(null);
	}

}
