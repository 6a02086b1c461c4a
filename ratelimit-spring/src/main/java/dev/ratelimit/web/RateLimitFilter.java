package dev.ratelimit.web;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMatcher;
import dev.ratelimit.rule.RulePhase;
import dev.ratelimit.rule.SettleResponse;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Applies the configured rules to every request: a place under each matching adaptive concurrency limit first (a full
 * one answers 503 before any rate is consumed), then match, resolve keys, one {@link RateLimiter} call for all
 * matching rate rules, write headers, then continue or reject (a rejected request gives its places back). With Spring
 * Security, two instances apply the rules of one {@link RulePhase} each, before and after authentication; the later
 * one merges its verdict with the earlier one's. What must happen when an admitted request ends (its places given
 * back, the {@link AdmissionListener}'s callbacks, the cost of rules settled after the response) runs once through
 * the request's {@link RequestCompletion}. The filter never wraps the request or the response, so a streamed body
 * reaches the client as it is flushed.
 * <p>
 * A request admitted with a {@link Verdict#delay() delay} (a rule's {@code max-wait}) waits for its slot without a
 * thread ({@link DelayedRequest}) and proceeds in an asynchronous dispatch at its slot; each rule lets at most its
 * {@code max-waiting} requests wait at once in this filter, and answers the others at once.
 */
public class RateLimitFilter extends OncePerRequestFilter implements RateLimitObservationAware {

	/** Request attribute holding the {@link Verdict} of the request, for the annotation aspect and the application. */
	public static final String VERDICT_ATTRIBUTE = RateLimitFilter.class.getName() + ".verdict";

	private static final Log logger = LogFactory.getLog(RateLimitFilter.class);

	private static final String CALLER = "servlet";

	private final RuleMatcher matcher;

	private final RateLimiter limiter;

	private final RateLimitHeadersWriter headersWriter;

	private final RateLimitRejectionHandler rejectionHandler;

	private final @Nullable RulePhase phase;

	private final AdaptiveConcurrencyLimits adaptiveLimits;

	private final AdmissionListener admissionListener;

	private final ServletRateLimitRequests requests;

	private final RateLimitRules rules;

	private final WaitingRoom waitingRoom = new WaitingRoom();

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private @Nullable CostSettlement settlement;

	/**
	 * Creates a filter for every rule.
	 * @param rules the rules
	 * @param limiter the limiter
	 * @param headersWriter writes the headers
	 * @param rejectionHandler answers denied requests
	 */
	public RateLimitFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler) {
		this(rules, limiter, headersWriter, rejectionHandler, null);
	}

	/**
	 * Creates a filter for the rules of one phase.
	 * @param rules the rules
	 * @param limiter the limiter
	 * @param headersWriter writes the headers
	 * @param rejectionHandler answers denied requests
	 * @param phase the phase whose rules it applies, or {@code null} for every rule
	 */
	public RateLimitFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler, @Nullable RulePhase phase) {
		this(rules, limiter, headersWriter, rejectionHandler, phase, AdaptiveConcurrencyLimits.none(),
				AdmissionListener.NONE);
	}

	/**
	 * Creates a filter for the rules of one phase, with adaptive concurrency limits.
	 * @param rules the rules
	 * @param limiter the limiter
	 * @param headersWriter writes the headers
	 * @param rejectionHandler answers denied requests
	 * @param phase the phase whose rules it applies, or {@code null} for every rule
	 * @param adaptiveLimits the adaptive concurrency limits
	 * @param admissionListener told of every request a verdict of this filter admitted
	 */
	public RateLimitFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler, @Nullable RulePhase phase,
			AdaptiveConcurrencyLimits adaptiveLimits, AdmissionListener admissionListener) {
		this(rules, limiter, headersWriter, rejectionHandler, phase, adaptiveLimits, admissionListener,
				ServletRateLimitRequests.defaults());
	}

	/**
	 * Creates a filter for the rules of one phase, with adaptive concurrency limits, that sees requests through views
	 * made with the application's settings.
	 * @param rules the rules
	 * @param limiter the limiter
	 * @param headersWriter writes the headers
	 * @param rejectionHandler answers denied requests
	 * @param phase the phase whose rules it applies, or {@code null} for every rule
	 * @param adaptiveLimits the adaptive concurrency limits
	 * @param admissionListener told of every request a verdict of this filter admitted
	 * @param requests makes the views of requests that keys read (client networks, routes)
	 */
	public RateLimitFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler, @Nullable RulePhase phase,
			AdaptiveConcurrencyLimits adaptiveLimits, AdmissionListener admissionListener,
			ServletRateLimitRequests requests) {
		this.requests = requests;
		this.matcher = new RuleMatcher(rules);
		this.rules = rules;
		this.limiter = limiter;
		this.headersWriter = headersWriter;
		this.rejectionHandler = rejectionHandler;
		this.phase = phase;
		this.adaptiveLimits = adaptiveLimits;
		this.admissionListener = admissionListener;
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

	/**
	 * Records the verdict of a call in the request ({@link #VERDICT_ATTRIBUTE}), merged with the verdict already
	 * recorded by an earlier call for the same request.
	 * @param request the request
	 * @param verdict the verdict of the latest call
	 * @return the merged verdict, which the headers describe
	 */
	public static Verdict recordVerdict(HttpServletRequest request, Verdict verdict) {
		Verdict merged = (request.getAttribute(VERDICT_ATTRIBUTE) instanceof Verdict earlier) ? earlier.merge(verdict)
				: verdict;
		request.setAttribute(VERDICT_ATTRIBUTE, merged);
		return merged;
	}

	@Override
	protected String getAlreadyFilteredAttributeName() {
		// distinct per phase, whatever the filters' names: each instance runs once per request
		return RateLimitFilter.class.getName() + "." + ((this.phase != null) ? this.phase.name() : "ALL")
				+ ALREADY_FILTERED_SUFFIX;
	}

	/** Asynchronous dispatches reach the filter: a request it delayed proceeds in one (see {@link DelayedRequest}). */
	@Override
	protected boolean shouldNotFilterAsyncDispatch() {
		return false;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		if (request.getDispatcherType() == DispatcherType.ASYNC) {
			DelayedRequest resumed = DelayedRequest.resumedBy(request, this);
			if (resumed != null) {
				// its slot has come
				request.setAttribute(DelayedRequest.RESUMING_ATTRIBUTE, Boolean.TRUE);
				try {
					proceed(request, response, chain, resumed.verdict(), resumed.admission());
				}
				finally {
					request.removeAttribute(DelayedRequest.RESUMING_ATTRIBUTE);
				}
				return;
			}
			if (request.getAttribute(seenAttributeName()) != null
					|| request.getAttribute(DelayedRequest.RESUMING_ATTRIBUTE) == null) {
				// an asynchronous result of a request this filter has decided on, or one it never applies to
				chain.doFilter(request, response);
				return;
			}
			// a request that an earlier filter delayed reaches this one for the first time
		}
		request.setAttribute(seenAttributeName(), Boolean.TRUE);
		ServletRateLimitRequest view = this.requests.of(request);
		AdaptiveAdmission admission = AdmissionSteps.admit(this.adaptiveLimits, view, this.phase, logger);
		Verdict verdict = null;
		if (admission != null && admission.denial() != null) {
			// denied before any rate rule is evaluated, so it consumes no quota
			RequestCompletion.rejected(request);
			this.rejectionHandler.rejectOverloaded(request, response, admission.denial());
			return;
		}
		WaitingRoom.Places places = null;
		boolean proceeds = false;
		boolean waitsAsynchronously = false;
		ListDenial listed = null;
		try {
			try {
				RuleMatcher.Matched matched = this.matcher.match(view, this.phase);
				listed = matched.denial();
				List<RateLimitCheck> checks = matched.checks();
				places = this.waitingRoom.enter(checks, this::rule);
				verdict = checks.isEmpty() ? null
						: this.observations.evaluate(this.limiter, places.checks(), CALLER);
			}
			catch (RuntimeException ex) {
				// The limiter must never turn a request into a 500 (a failing store, resolver or listener): admit it, and
				// say so loudly.
				logger.error("Rate limiting failed; the request is admitted unchecked", ex);
				verdict = null;
			}
			if (listed != null) {
				// refused by the deny list before any rule: no quota was consumed, no store was called
				RequestCompletion.rejected(request);
				this.rejectionHandler.rejectListed(request, response, listed);
				return;
			}
			if (verdict != null) {
				Verdict merged = recordVerdict(request, verdict);
				AdmissionSteps.logShadowDenials(logger, verdict, request.getMethod(), request.getRequestURI());
				this.headersWriter.write(response, merged);
				if (!verdict.allowed()) {
					RequestCompletion.rejected(request);
					LeaseRelease.releaseDenied(this.limiter, verdict);
					this.rejectionHandler.reject(request, response, merged);
					return;
				}
				if (!verdict.delay().isZero()) {
					if (request.isAsyncSupported()) {
						DelayedRequest delayed = new DelayedRequest(this, this.limiter, verdict, admission, places,
								this.observations.startWait(verdict, CALLER, null));
						delayed.start(request, response);
						// the delayed request holds the places now
						waitsAsynchronously = true;
						return;
					}
					// no asynchronous support on this request's path: wait on this thread
					this.observations.awaitSlot(this.limiter, verdict, CALLER);
				}
			}
			proceeds = true;
		}
		finally {
			if (places != null && !waitsAsynchronously) {
				places.leave();
			}
			if (admission != null && !proceeds && !waitsAsynchronously) {
				// denied by a rate rule (or failed before proceeding): the places are not held, nor measured
				admission.release(Outcome.REJECTED);
			}
		}
		proceed(request, response, chain, verdict, admission);
	}

	/** Lets an admitted request proceed, followed to its end by whoever needs to know. */
	private void proceed(HttpServletRequest request, HttpServletResponse response, FilterChain chain,
			@Nullable Verdict verdict, @Nullable AdaptiveAdmission admission) throws IOException, ServletException {
		boolean listened = verdict != null && AdmissionSteps.wanted(this.admissionListener, verdict, logger);
		boolean settles = verdict != null && AdmissionSteps.settles(this.settlement, verdict, logger);
		if (admission != null || listened || settles) {
			Completion completion = RequestCompletion.of(request);
			if (admission != null) {
				completion.onEnd(admission::release);
			}
			if (listened) {
				AdmissionSteps.admitted(this.admissionListener, verdict, completion, logger);
			}
			if (settles) {
				AdmissionSteps.followSettlement(this.settlement, verdict, completion, context(request, response),
						logger);
			}
		}
		RequestCompletion.proceed(request, response, chain);
	}

	/** Returns the request's {@link RateLimitContext}, made with a view of its response when it has none yet. */
	private static RateLimitContext context(HttpServletRequest request, HttpServletResponse response) {
		if (request.getAttribute(RateLimitContext.ATTRIBUTE) instanceof RateLimitContext existing) {
			return existing;
		}
		RateLimitContext context = new RateLimitContext(() -> settleResponse(response));
		request.setAttribute(RateLimitContext.ATTRIBUTE, context);
		return context;
	}

	/** Reads a response's status and headers as they are, for a rule's {@code settle} source. */
	private static SettleResponse settleResponse(HttpServletResponse response) {
		HttpHeaders headers = new HttpHeaders();
		for (String name : response.getHeaderNames()) {
			headers.addAll(name, List.copyOf(response.getHeaders(name)));
		}
		return new SettleResponse(response.getStatus(), HttpHeaders.readOnlyHttpHeaders(headers));
	}

	private @Nullable RateLimitRule rule(String name) {
		return this.rules.get(name).orElse(null);
	}

	/** The attribute that says this filter has decided on the request (kept across its dispatches). */
	private String seenAttributeName() {
		return getAlreadyFilteredAttributeName() + ".seen";
	}

	/** Returns how many requests of a rule wait for their slot in this filter now. */
	public int waiting(String rule) {
		return this.waitingRoom.waiting(rule);
	}

}
