package dev.ratelimit.ai;

import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.aop.CurrentRequest;
import dev.ratelimit.aop.ReactiveCurrentRequest;
import dev.ratelimit.key.KeyResolvers;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.core.Ordered;

/**
 * Limits the tokens a rule allows each subject, in front of a {@code ChatClient}'s model: before the model is called,
 * the call reserves its estimate (the rule's {@code cost}, a {@link TokenEstimate}) in the rule's quota, or is refused
 * with a {@link RateLimitExceededException} carrying the rule's verdict when the budget is spent; when the call ends,
 * the reservation is settled with the tokens the model reported ({@link UsageTokens}): the difference is charged (the
 * quota may go into debt, and the next calls are refused until it has recovered) or given back.
 * <ul>
 * <li>A call ({@code call()}) settles with its response's usage.</li>
 * <li>A stream ({@code stream()}) reserves when it is subscribed to (in a servlet request on the request's thread, so
 * that the verdict's headers are written; elsewhere without blocking), and settles when it ends with the usage of the
 * last chunk that reported one (its final chunk); when it is cancelled or fails, with the usage reported until then.
 * The stream completes only once the settlement is made, so whoever reads the quota after it sees the call
 * counted.</li>
 * <li>A call or stream that reported no usage (the model failed, or reports none) keeps its estimate charged.</li>
 * </ul>
 * The subject is what the caller passed as the {@link #SUBJECT} advisor parameter
 * ({@code .advisors((a) -> a.param(TokenRateLimitAdvisor.SUBJECT, userId))}), else the rule's key resolved against
 * the web request the call runs in, as for {@code @RateLimited} (the client's IP when it cannot be resolved), else
 * {@code global} outside a request. Tiers and per-subject exceptions apply as for any rule.
 * <p>
 * Its default order ({@link #DEFAULT_ORDER}) puts it before (around) the chat-memory and tool-calling advisors, so a
 * refused call reads no memory, and a call's usage is that of every round of its tool calls.
 */
public final class TokenRateLimitAdvisor implements CallAdvisor, StreamAdvisor {

	/** The advisor parameter that names the subject of a call, overriding the rule's key. */
	public static final String SUBJECT = "ratelimit.subject";

	/** Before the chat-memory advisors ({@code HIGHEST_PRECEDENCE + 200}) and tool calling ({@code + 300}). */
	public static final int DEFAULT_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	private static final Log logger = LogFactory.getLog(TokenRateLimitAdvisor.class);

	private final RateLimiter limiter;

	private final RateLimitRules rules;

	private final String rule;

	private final TokenEstimate estimate;

	private final UsageTokens tokens;

	private final CurrentRequest currentRequest;

	private final ReactiveCurrentRequest reactiveCurrentRequest;

	private final int order;

	private TokenRateLimitAdvisor(Builder builder) {
		this.limiter = builder.limiter;
		this.rules = builder.rules;
		this.rule = builder.rule;
		this.estimate = builder.estimate;
		this.tokens = builder.tokens;
		this.currentRequest = builder.currentRequest;
		this.reactiveCurrentRequest = builder.reactiveCurrentRequest;
		this.order = builder.order;
	}

	/**
	 * Starts an advisor of a rule.
	 * @param limiter the limiter
	 * @param rules the rules, where the rule is looked up on each call (so that overrides apply)
	 * @param rule the rule's name
	 * @return the builder
	 */
	public static Builder builder(RateLimiter limiter, RateLimitRules rules, String rule) {
		return new Builder(limiter, rules, rule);
	}

	/** Returns the name of the rule this advisor limits. */
	public String rule() {
		return this.rule;
	}

	@Override
	public String getName() {
		return "ratelimit:" + this.rule;
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		RateLimitRequest http = this.currentRequest.get();
		Verdict verdict = this.limiter.acquire(checks(request, http));
		TokenReservation reservation = admitted(verdict, http, this.currentRequest::record);
		// a call that throws reported no usage: its estimate stays charged
		ChatClientResponse response = chain.nextCall(request);
		reservation.observe(response);
		try {
			List<Settlement> settlements = reservation.settlements(this.tokens);
			if (!settlements.isEmpty()) {
				this.limiter.settle(settlements);
			}
		}
		catch (RuntimeException ex) {
			// the model has answered: its answer is not thrown away for want of the store
			logger.warn("Could not settle a call of rule '" + this.rule + "' (its estimate stays charged)", ex);
		}
		return response;
	}

	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		// called when the stream is subscribed to: on a servlet request's thread, the request is that thread's
		RateLimitRequest servletRequest = this.currentRequest.get();
		return Flux.deferContextual((context) -> {
			Mono<TokenReservation> admission;
			if (servletRequest != null) {
				// decided on the request's own thread, as the servlet filter decides: the verdict's headers are
				// written before the response starts, and a refusal is an error before the first chunk
				admission = Mono.fromSupplier(() -> admitted(this.limiter.acquire(checks(request, servletRequest)),
						servletRequest, this.currentRequest::record));
			}
			else {
				RateLimitRequest reactive = this.reactiveCurrentRequest.get(context);
				admission = (reactive != null)
						? this.reactiveCurrentRequest.resolve(reactive)
							.flatMap((resolved) -> admit(request, resolved, this.reactiveCurrentRequest::record))
						: admit(request, null, (http, verdict) -> {
						});
			}
			return Flux.usingWhen(admission,
					(reservation) -> chain.nextStream(request).doOnNext(reservation::observe),
					(reservation) -> settle(reservation), (reservation, error) -> settle(reservation),
					(reservation) -> settle(reservation));
		});
	}

	private Mono<TokenReservation> admit(ChatClientRequest request, @Nullable RateLimitRequest http,
			BiConsumer<RateLimitRequest, Verdict> record) {
		List<RateLimitCheck> checks = checks(request, http);
		return Mono.fromFuture(() -> this.limiter.acquireAsync(checks))
			.map((verdict) -> admitted(verdict, http, record));
	}

	private TokenReservation admitted(Verdict verdict, @Nullable RateLimitRequest http,
			BiConsumer<RateLimitRequest, Verdict> record) {
		if (http != null) {
			record.accept(http, verdict);
		}
		if (!verdict.allowed()) {
			throw new RateLimitExceededException(verdict);
		}
		return new TokenReservation(verdict);
	}

	private Mono<Void> settle(TokenReservation reservation) {
		return Mono.defer(() -> {
			List<Settlement> settlements = reservation.settlements(this.tokens);
			return settlements.isEmpty() ? Mono.<Void>empty()
					: Mono.fromFuture(() -> this.limiter.settleAsync(settlements)).then();
		}).onErrorResume((ex) -> {
			logger.warn("Could not settle a stream of rule '" + this.rule + "' (its estimate stays charged)", ex);
			return Mono.empty();
		});
	}

	/** Makes the check of a call: its subject, the policy (tier, exception) and the estimate. */
	private List<RateLimitCheck> checks(ChatClientRequest request, @Nullable RateLimitRequest http) {
		RateLimitRule rule = this.rules.get(this.rule)
			.orElseThrow(() -> new IllegalStateException("No rule '" + this.rule + "' (ratelimit.rules)"));
		String subject = subject(rule, request, http);
		RateLimitPolicy policy = (http != null) ? rule.policyFor(http, subject, this.rules.resolutionFailures())
				: Objects.requireNonNullElse(rule.exceptions().get(subject), rule.policy());
		long tokens;
		try {
			tokens = this.estimate.estimate(new TokenEstimateRoot(request.prompt(), http, request.context()));
		}
		catch (RuntimeException ex) {
			this.rules.resolutionFailures().report(rule.name(), ResolutionPart.COST, ex);
			tokens = 1;
		}
		return List.of(rule.check(policy, subject, tokens));
	}

	private String subject(RateLimitRule rule, ChatClientRequest request, @Nullable RateLimitRequest http) {
		Object given = request.context().get(SUBJECT);
		if (given != null) {
			return given.toString();
		}
		if (http == null) {
			return KeyResolvers.GLOBAL;
		}
		try {
			String resolved = rule.key().resolve(http);
			return (resolved != null) ? resolved : http.clientIp();
		}
		catch (RuntimeException ex) {
			this.rules.resolutionFailures().report(rule.name(), ResolutionPart.KEY, ex);
			return http.clientIp();
		}
	}

	/** Builds a {@link TokenRateLimitAdvisor}. */
	public static final class Builder {

		private final RateLimiter limiter;

		private final RateLimitRules rules;

		private final String rule;

		private TokenEstimate estimate = TokenEstimate.fixed(1);

		private UsageTokens tokens = UsageTokens.TOTAL;

		private CurrentRequest currentRequest = CurrentRequest.none();

		private ReactiveCurrentRequest reactiveCurrentRequest = ReactiveCurrentRequest.none();

		private int order = DEFAULT_ORDER;

		private Builder(RateLimiter limiter, RateLimitRules rules, String rule) {
			this.limiter = limiter;
			this.rules = rules;
			this.rule = rule;
		}

		/**
		 * Sets what a call reserves before the model is called (1 token by default; the auto-configuration parses
		 * the rule's {@code cost}).
		 * @param estimate the estimate
		 * @return this builder
		 */
		public Builder estimate(TokenEstimate estimate) {
			this.estimate = estimate;
			return this;
		}

		/**
		 * Sets what a reported usage counts ({@link UsageTokens#TOTAL} by default).
		 * @param tokens what a usage counts
		 * @return this builder
		 */
		public Builder tokens(UsageTokens tokens) {
			this.tokens = tokens;
			return this;
		}

		/**
		 * Sets where a call finds the servlet request it runs in (none by default: every call is outside one).
		 * @param currentRequest the current request
		 * @return this builder
		 */
		public Builder currentRequest(CurrentRequest currentRequest) {
			this.currentRequest = currentRequest;
			return this;
		}

		/**
		 * Sets where a stream finds the WebFlux request it serves, in its Reactor context (none by default).
		 * @param reactiveCurrentRequest the current request
		 * @return this builder
		 */
		public Builder reactiveCurrentRequest(ReactiveCurrentRequest reactiveCurrentRequest) {
			this.reactiveCurrentRequest = reactiveCurrentRequest;
			return this;
		}

		/**
		 * Sets the advisor's order ({@link TokenRateLimitAdvisor#DEFAULT_ORDER} by default).
		 * @param order the order
		 * @return this builder
		 */
		public Builder order(int order) {
			this.order = order;
			return this;
		}

		/** Returns the advisor. */
		public TokenRateLimitAdvisor build() {
			return new TokenRateLimitAdvisor(this);
		}

	}

}
