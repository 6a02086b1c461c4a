package dev.ratelimit.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.RateLimited;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.key.KeyResolvers;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.lists.ListDenial;
import dev.ratelimit.lists.ListDeniedException;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.rule.CostResolver;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleMode;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.Order;
import org.springframework.util.ClassUtils;

/**
 * Applies {@link RateLimited} annotations: a place under each {@code adaptive-concurrency} rule an annotation names
 * first (a full one throws {@link AdaptiveLimitExceededException} before any rate is consumed, and the places are
 * given back when the call ends), then all other annotations of a call in one {@link RateLimiter} call; a denial
 * throws {@link RateLimitExceededException}; inside a web request (as its {@link CurrentRequest} finds it) the
 * verdict is merged with the filter's and the headers are written. An admitted call is announced to the
 * {@link AdmissionListener} with a {@link Completion} that ends when the method returns or throws, or when the
 * {@link java.util.concurrent.CompletionStage} it returned completes.
 * <p>
 * A method that returns a {@code Mono} or a {@code Flux} (with Reactor on the class path) is limited on each
 * subscription to what it returned, without blocking: a denial is an error signal, and the call ends when the
 * publisher terminates or is cancelled; its request is the one its {@link ReactiveCurrentRequest} finds in the Reactor
 * context.
 */
@Aspect
@Order(0)
public class RateLimitedAspect implements RateLimitObservationAware {

	private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

	private final RateLimiter limiter;

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private final RateLimitRules rules;

	private final BeanFactoryResolver beanResolver;

	private final CurrentRequest currentRequest;

	private final AdmissionListener admissionListener;

	private final AdaptiveConcurrencyLimits adaptiveLimits;

	private final RateLimitListener listener;

	private static final Verdict NO_RATES = new Verdict(List.of(), List.of());

	private final Map<MethodClassKey, AnnotatedLimits> compiled = new ConcurrentHashMap<>();

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			RateLimitedAspect.class.getClassLoader());

	/** Limits the calls that return a {@code Mono} or a {@code Flux}; {@code null} without Reactor. */
	private final @Nullable ReactiveCalls reactive;

	private @Nullable CostSettlement settlement;

	/**
	 * @param limiter the limiter
	 * @param rules the configured rules, for annotations that name one
	 * @param beanFactory resolves {@code @beanName} in expressions
	 * @param currentRequest finds the web request of a call and records the call's verdict in it
	 */
	public RateLimitedAspect(RateLimiter limiter, RateLimitRules rules, BeanFactory beanFactory,
			CurrentRequest currentRequest) {
		this(limiter, rules, beanFactory, currentRequest, AdmissionListener.NONE);
	}

	/**
	 * @param limiter the limiter
	 * @param rules the configured rules, for annotations that name one
	 * @param beanFactory resolves {@code @beanName} in expressions
	 * @param currentRequest finds the web request of a call and records the call's verdict in it
	 * @param admissionListener told of every admitted call, with the completion that ends with it
	 */
	public RateLimitedAspect(RateLimiter limiter, RateLimitRules rules, BeanFactory beanFactory,
			CurrentRequest currentRequest, AdmissionListener admissionListener) {
		this(limiter, rules, beanFactory, currentRequest, admissionListener, AdaptiveConcurrencyLimits.none());
	}

	/**
	 * @param limiter the limiter
	 * @param rules the configured rules, for annotations that name one
	 * @param beanFactory resolves {@code @beanName} in expressions
	 * @param currentRequest finds the web request of a call and records the call's verdict in it
	 * @param admissionListener told of every admitted call, with the completion that ends with it
	 * @param adaptiveLimits the adaptive concurrency limits, for annotations that name an adaptive rule
	 */
	public RateLimitedAspect(RateLimiter limiter, RateLimitRules rules, BeanFactory beanFactory,
			CurrentRequest currentRequest, AdmissionListener admissionListener,
			AdaptiveConcurrencyLimits adaptiveLimits) {
		this(limiter, rules, beanFactory, currentRequest, null, admissionListener, adaptiveLimits);
	}

	/**
	 * @param limiter the limiter
	 * @param rules the configured rules, for annotations that name one
	 * @param beanFactory resolves {@code @beanName} in expressions
	 * @param currentRequest finds the web request of a call and records the call's verdict in it
	 * @param reactiveCurrentRequest finds the web request of a reactive call in the Reactor context of its
	 * subscription, or {@code null} when reactive calls never run in one
	 * @param admissionListener told of every admitted call, with the completion that ends with it
	 * @param adaptiveLimits the adaptive concurrency limits, for annotations that name an adaptive rule
	 */
	public RateLimitedAspect(RateLimiter limiter, RateLimitRules rules, BeanFactory beanFactory,
			CurrentRequest currentRequest, @Nullable ReactiveCurrentRequest reactiveCurrentRequest,
			AdmissionListener admissionListener, AdaptiveConcurrencyLimits adaptiveLimits) {
		this(limiter, rules, beanFactory, currentRequest, reactiveCurrentRequest, admissionListener, adaptiveLimits,
				RateLimitListener.NONE);
	}

	/**
	 * @param limiter the limiter
	 * @param rules the configured rules, for annotations that name one
	 * @param beanFactory resolves {@code @beanName} in expressions
	 * @param currentRequest finds the web request of a call and records the call's verdict in it
	 * @param reactiveCurrentRequest finds the web request of a reactive call in the Reactor context of its
	 * subscription, or {@code null} when reactive calls never run in one
	 * @param admissionListener told of every admitted call, with the completion that ends with it
	 * @param adaptiveLimits the adaptive concurrency limits, for annotations that name an adaptive rule
	 * @param listener told of every denied call that its fallback method answered
	 */
	public RateLimitedAspect(RateLimiter limiter, RateLimitRules rules, BeanFactory beanFactory,
			CurrentRequest currentRequest, @Nullable ReactiveCurrentRequest reactiveCurrentRequest,
			AdmissionListener admissionListener, AdaptiveConcurrencyLimits adaptiveLimits,
			RateLimitListener listener) {
		this.listener = listener;
		this.adaptiveLimits = adaptiveLimits;
		this.limiter = limiter;
		this.rules = rules;
		this.beanResolver = new BeanFactoryResolver(beanFactory);
		this.currentRequest = currentRequest;
		this.admissionListener = admissionListener;
		this.reactive = REACTOR_PRESENT
				? new ReactiveCalls(limiter, reactiveCurrentRequest, admissionListener, adaptiveLimits) : null;
	}

	/**
	 * Sets the observations of the decisions on annotated calls (none by default).
	 * @param observations the observations
	 */
	@Override
	public void setObservations(RateLimitObservations observations) {
		this.observations = observations;
		if (this.reactive != null) {
			this.reactive.observations = observations;
		}
	}

	/**
	 * Sets what settles the cost of calls whose annotations settle it from their value ({@code settle}; none by
	 * default: their estimates stand).
	 * @param settlement the cost settlement
	 */
	public void setCostSettlement(@Nullable CostSettlement settlement) {
		this.settlement = settlement;
	}

	@Around("@within(dev.ratelimit.RateLimited) || @annotation(dev.ratelimit.RateLimited)"
			+ " || @within(dev.ratelimit.RateLimited.List) || @annotation(dev.ratelimit.RateLimited.List)")
	public @Nullable Object limit(ProceedingJoinPoint call) throws Throwable {
		Method method = ((MethodSignature) call.getSignature()).getMethod();
		Object target = call.getTarget();
		Class<?> targetClass = (target != null) ? AopUtils.getTargetClass(target) : method.getDeclaringClass();
		AnnotatedLimits limits = limitsOf(method, targetClass);
		if (this.reactive != null && ReactiveCalls.handles(method.getReturnType())) {
			// the method only assembles its publisher: the limits apply on each subscription
			FallbackMethod fallback = limits.fallback();
			return this.reactive.limit(call.proceed(), limits.adaptive(), "call of " + method.getName(),
					(request) -> checks(call, method, targetClass, limits, request),
					(fallback != null) ? (denial) -> fallback(call, fallback, denial) : null,
					(verdict) -> ResultSettlement.of(this.settlement, limits, verdict,
							() -> evaluationContext(call, method, targetClass)));
		}
		AdaptiveAdmission admission = this.adaptiveLimits.admitNamed(limits.adaptive(), "call of " + method.getName());
		if (admission != null && admission.denial() != null) {
			// denied before any rate is checked, so it consumes no quota
			return denied(call, limits, new AdaptiveLimitExceededException(admission.denial()));
		}
		boolean proceeds = false;
		try {
			Object result = limitRates(call, method, targetClass, limits, admission);
			proceeds = true;
			return result;
		}
		finally {
			if (admission != null && !proceeds) {
				// denied by a rate (or failed before the call): the places are neither held nor measured; after a call
				// that threw, the completion released them first (as failed), and only a permit's first release counts
				admission.release(Outcome.REJECTED);
			}
		}
	}

	private @Nullable Object limitRates(ProceedingJoinPoint call, Method method, Class<?> targetClass,
			AnnotatedLimits limits, @Nullable AdaptiveAdmission admission) throws Throwable {
		RateLimitRequest request = this.currentRequest.get();
		List<RateLimitCheck> checks;
		try {
			checks = checks(call, method, targetClass, limits, request);
		}
		catch (ListDeniedException ex) {
			if (admission != null) {
				admission.release(Outcome.REJECTED);
			}
			return denied(call, limits, ex);
		}
		if (checks.isEmpty()) {
			// only adaptive rules: no rate to evaluate, nothing to record in the request
			return proceed(call, admission, NO_RATES, false);
		}
		Verdict verdict = this.observations.evaluate(this.limiter, checks, "method");
		if (request != null) {
			this.currentRequest.record(request, verdict);
		}
		if (!verdict.allowed()) {
			LeaseRelease.releaseDenied(this.limiter, verdict);
			if (admission != null) {
				// the places are given back before a fallback runs (the caller's finally does it again, which no-ops)
				admission.release(Outcome.REJECTED);
			}
			return denied(call, limits, new RateLimitExceededException(verdict));
		}
		ResultSettlement settles = ResultSettlement.of(this.settlement, limits, verdict,
				() -> evaluationContext(call, method, targetClass));
		Object result = proceed(call, admission, verdict, this.admissionListener.wants(verdict));
		if (settles != null) {
			if (result instanceof CompletionStage<?> stage) {
				stage.whenComplete((value, failure) -> {
					if (failure == null) {
						settles.report(value);
					}
					// on whatever thread completed the stage: the settlement is sent, not waited for
					settles.end(true);
				});
			}
			else {
				settles.report(result);
				settles.end(false);
			}
		}
		return result;
	}

	/** Makes the evaluation context of a call's expressions: its arguments ({@code #name}, {@code #p0}) and beans. */
	private MethodBasedEvaluationContext evaluationContext(ProceedingJoinPoint call, Method method,
			Class<?> targetClass) {
		MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(call.getTarget(),
				specific(method, targetClass), call.getArgs(), PARAMETER_NAMES);
		context.setBeanResolver(this.beanResolver);
		return context;
	}

	/** Answers a denied call: its fallback's value when it has one, else the denial is thrown. */
	private @Nullable Object denied(ProceedingJoinPoint call, AnnotatedLimits limits,
			RateLimitExceededException denial) throws Throwable {
		FallbackMethod fallback = limits.fallback();
		if (fallback == null) {
			throw denial;
		}
		return fallback(call, fallback, denial);
	}

	private @Nullable Object fallback(ProceedingJoinPoint call, FallbackMethod fallback,
			RateLimitExceededException denial) throws Throwable {
		this.listener.onFallback(denial.getVerdict());
		return fallback.invoke(call.getTarget(), call.getArgs(), denial);
	}

	/**
	 * Makes the checks of a call's rate annotations, for the request it runs in, as the allow and deny lists leave
	 * them (a check the allow list holds is left out).
	 * @throws ListDeniedException when the deny list holds a subject or the caller's network
	 */
	private List<RateLimitCheck> checks(ProceedingJoinPoint call, Method method, Class<?> targetClass,
			AnnotatedLimits limits, @Nullable RateLimitRequest request) {
		List<RateLimitCheck> checks = new ArrayList<>(limits.limits().size());
		RateLimitLists lists = this.rules.lists();
		byte[] address = lists.isEmpty() ? null : lists.address(request);
		MethodBasedEvaluationContext context = null;
		for (AnnotatedLimits.Limit limit : limits.limits()) {
			if ((limit.key() != null || limit.cost() != null) && context == null) {
				context = evaluationContext(call, method, targetClass);
			}
			RateLimitCheck check = check(limit, request, context);
			if (!lists.isEmpty()) {
				String rule = (limit.rule() != null) ? limit.rule() : check.policy().name();
				ListDenial denial = lists.denial(rule, check.subject(), address);
				if (denial != null) {
					throw new ListDeniedException(denial);
				}
				if (lists.allows(rule, check.subject(), address)) {
					continue;
				}
			}
			checks.add(check);
		}
		return checks;
	}

	/** Proceeds with an admitted call, followed to its end when places or a listener need it. */
	private @Nullable Object proceed(ProceedingJoinPoint call, @Nullable AdaptiveAdmission admission, Verdict verdict,
			boolean listened) throws Throwable {
		if (!listened && admission == null) {
			return call.proceed();
		}
		Completion completion = new Completion();
		if (admission != null) {
			completion.onEnd(admission::release);
		}
		if (listened) {
			this.admissionListener.onAdmitted(verdict, completion);
		}
		return CallCompletion.proceed(call, completion);
	}

	/**
	 * Compiles the annotations of a method eagerly, so that invalid ones fail at start-up.
	 * @param method the method
	 * @param targetClass the bean class
	 */
	public void validate(Method method, Class<?> targetClass) {
		limitsOf(method, targetClass, null);
	}

	/**
	 * Compiles the annotations of a method of a bean eagerly, so that invalid ones fail at start-up naming the bean.
	 * @param method the method
	 * @param targetClass the bean class
	 * @param beanName the bean's name
	 */
	public void validate(Method method, Class<?> targetClass, String beanName) {
		limitsOf(method, targetClass, beanName);
	}

	private AnnotatedLimits limitsOf(Method method, Class<?> targetClass) {
		return limitsOf(method, targetClass, null);
	}

	private AnnotatedLimits limitsOf(Method method, Class<?> targetClass, @Nullable String beanName) {
		return this.compiled.computeIfAbsent(new MethodClassKey(method, targetClass),
				(key) -> AnnotatedLimits.compile(specific(method, targetClass), targetClass, this.rules,
						(name) -> this.adaptiveLimits.get(name).isPresent(), beanName));
	}

	private RateLimitCheck check(AnnotatedLimits.Limit limit, @Nullable RateLimitRequest request,
			@Nullable MethodBasedEvaluationContext context) {
		RateLimitRule rule = (limit.rule() != null) ? this.rules.get(limit.rule()).orElse(null) : null;
		RateLimitPolicy policy = (rule != null && request != null)
				? rule.policyFor(request, this.rules.resolutionFailures()) : limit.policy();
		String subject;
		try {
			subject = subject(limit, rule, request, context);
		}
		catch (RuntimeException ex) {
			// as for a rule's key: fall back (the caller's IP, or the global quota outside a request) and say so
			this.rules.resolutionFailures().report(policy.name(), ResolutionPart.KEY, ex);
			subject = (request != null) ? request.clientIp() : KeyResolvers.GLOBAL;
		}
		RateLimitPolicy exception = (rule != null) ? rule.exceptions().get(subject) : null;
		if (exception != null) {
			policy = exception;
		}
		long cost;
		try {
			cost = cost(limit, rule, request, context);
		}
		catch (RuntimeException ex) {
			this.rules.resolutionFailures().report(policy.name(), ResolutionPart.COST, ex);
			cost = 1;
		}
		boolean shadow = limit.shadow() || (rule != null && rule.mode() == RuleMode.SHADOW);
		return new RateLimitCheck(policy, subject, cost, shadow,
				(rule != null) ? rule.status() : DenialStatus.TOO_MANY_REQUESTS);
	}

	private static String subject(AnnotatedLimits.Limit limit, @Nullable RateLimitRule rule,
			@Nullable RateLimitRequest request, @Nullable MethodBasedEvaluationContext context) {
		if (limit.key() != null) {
			Object value = limit.key().getValue(context);
			return (value != null) ? value.toString() : "";
		}
		if (request != null) {
			String resolved = (rule != null) ? rule.key().resolve(request) : request.clientIp();
			return (resolved != null) ? resolved : request.clientIp();
		}
		return KeyResolvers.GLOBAL;
	}

	private static long cost(AnnotatedLimits.Limit limit, @Nullable RateLimitRule rule,
			@Nullable RateLimitRequest request, @Nullable MethodBasedEvaluationContext context) {
		if (limit.fixedCost() > 0) {
			return limit.fixedCost();
		}
		if (limit.cost() != null) {
			return CostResolver.costOf(limit.cost().getValue(context));
		}
		return (rule != null && request != null) ? rule.cost().resolve(request) : 1;
	}

	private static Method specific(Method method, Class<?> targetClass) {
		return ClassUtils.getMostSpecificMethod(method, targetClass);
	}

}
