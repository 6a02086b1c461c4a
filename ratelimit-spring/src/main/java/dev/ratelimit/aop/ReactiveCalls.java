package dev.ratelimit.aop;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.adaptive.AdaptiveLimitExceededException;
import dev.ratelimit.lease.LeaseRelease;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.observation.ReactorObservations;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Applies the {@code @RateLimited} annotations of a method that returns a {@link Mono} or a {@link Flux}: the method
 * is called as usual (it only assembles its publisher), and the limits are evaluated on each subscription, through
 * {@link RateLimiter#evaluateAsync} so that no thread waits for the store. A denial is an error signal carrying the
 * verdict ({@link RateLimitExceededException}, or {@link AdaptiveLimitExceededException} for an adaptive rule) and
 * the method's publisher is never subscribed; an admitted subscription is followed to its end (complete, error or
 * cancel) for the {@link AdmissionListener}, which releases concurrency leases and refunds {@code count-when} units.
 * Only loaded when Reactor is on the class path.
 */
final class ReactiveCalls {

	private static final Verdict NO_RATES = new Verdict(List.of(), List.of());

	private final RateLimiter limiter;

	private final ReactiveCurrentRequest currentRequest;

	private final AdmissionListener admissionListener;

	private final AdaptiveConcurrencyLimits adaptiveLimits;

	/** Set by the aspect. */
	RateLimitObservations observations = RateLimitObservations.NONE;

	ReactiveCalls(RateLimiter limiter, @Nullable ReactiveCurrentRequest currentRequest,
			AdmissionListener admissionListener, AdaptiveConcurrencyLimits adaptiveLimits) {
		this.limiter = limiter;
		this.currentRequest = (currentRequest != null) ? currentRequest : ReactiveCurrentRequest.none();
		this.admissionListener = admissionListener;
		this.adaptiveLimits = adaptiveLimits;
	}

	/** Returns whether a method's return type is one that this class limits on subscription. */
	static boolean handles(Class<?> returnType) {
		return Mono.class.isAssignableFrom(returnType) || Flux.class.isAssignableFrom(returnType);
	}

	/** Answers a denied subscription with the publisher of the call's fallback method. */
	@FunctionalInterface
	interface Fallback {

		/**
		 * Calls the fallback method.
		 * @param denial the denial
		 * @return the fallback's publisher, of the annotated method's type
		 * @throws Throwable what the fallback method threw
		 */
		@Nullable Object answer(RateLimitExceededException denial) throws Throwable;

	}

	/**
	 * Limits the publisher a call returned.
	 * @param publisher what the method returned (a {@link Mono} or a {@link Flux}; {@code null} is returned as is)
	 * @param adaptive the adaptive rules the call takes a place under
	 * @param what names the call in an adaptive denial
	 * @param checks makes the call's checks for the request it runs in
	 * @param fallback answers a denied subscription, or {@code null} to signal the denial as an error
	 * @param settles makes the settlement of an admitted subscription from its values, or gives {@code null}
	 * @return a publisher of the same type that evaluates the limits on subscription
	 */
	@Nullable Object limit(@Nullable Object publisher, List<String> adaptive, String what,
			Function<@Nullable RateLimitRequest, List<RateLimitCheck>> checks, @Nullable Fallback fallback,
			Function<Verdict, @Nullable ResultSettlement> settles) {
		if (publisher instanceof Mono<?> mono) {
			return Mono.deferContextual((context) -> admitOrFallBack(context, adaptive, what, checks, fallback)
				.flatMap((admitted) -> admitted.follow(settled(mono, admitted, settles))));
		}
		if (publisher instanceof Flux<?> flux) {
			return Flux.deferContextual((context) -> admitOrFallBack(context, adaptive, what, checks, fallback)
				.flatMapMany((admitted) -> admitted.follow(settled(flux, admitted, settles))));
		}
		return publisher;
	}

	/** Reports each value of an admitted subscription to its settlement, which settles when it terminates. */
	private static <T> Mono<T> settled(Mono<T> mono, Admitted admitted,
			Function<Verdict, @Nullable ResultSettlement> settles) {
		ResultSettlement settlement = (admitted.verdict() != null) ? settles.apply(admitted.verdict()) : null;
		return (settlement != null)
				? mono.doOnNext(settlement::report).doFinally((signal) -> settlement.end(true)) : mono;
	}

	private static <T> Flux<T> settled(Flux<T> flux, Admitted admitted,
			Function<Verdict, @Nullable ResultSettlement> settles) {
		ResultSettlement settlement = (admitted.verdict() != null) ? settles.apply(admitted.verdict()) : null;
		return (settlement != null)
				? flux.doOnNext(settlement::report).doFinally((signal) -> settlement.end(true)) : flux;
	}

	/**
	 * Admits a subscription, or, with a fallback, turns its denial into one that follows the fallback's publisher:
	 * only the admission's own denial, never one that the method's publisher signals.
	 */
	private Mono<Admitted> admitOrFallBack(ContextView context, List<String> adaptive, String what,
			Function<@Nullable RateLimitRequest, List<RateLimitCheck>> checks, @Nullable Fallback fallback) {
		Mono<Admitted> admission = admit(context, adaptive, what, checks);
		if (fallback == null) {
			return admission;
		}
		return admission.onErrorResume(RateLimitExceededException.class,
				(denial) -> Mono.just(new Admitted(null, () -> fallback.answer(denial), null)));
	}

	private Mono<Admitted> admit(ContextView context, List<String> adaptive, String what,
			Function<@Nullable RateLimitRequest, List<RateLimitCheck>> checkMaker) {
		AdaptiveAdmission admission = this.adaptiveLimits.admitNamed(adaptive, what);
		if (admission != null && admission.denial() != null) {
			// denied before any rate is checked, so it consumes no quota
			return Mono.error(new AdaptiveLimitExceededException(admission.denial()));
		}
		RateLimitRequest request;
		List<RateLimitCheck> checks;
		try {
			request = this.currentRequest.get(context);
			checks = checkMaker.apply(request);
		}
		catch (RuntimeException ex) {
			rejected(admission);
			return Mono.error(ex);
		}
		if (request == null) {
			return evaluate(null, checks, admission);
		}
		// what the checks read and takes I/O to know (a principal, a reactive key) is resolved, then they are made again
		return this.currentRequest.resolve(request)
			.flatMap((resolved) -> evaluate(resolved, (resolved != request) ? checkMaker.apply(resolved) : checks,
					admission))
			.doOnError((ex) -> rejected(admission));
	}

	private Mono<Admitted> evaluate(@Nullable RateLimitRequest request, List<RateLimitCheck> checks,
			@Nullable AdaptiveAdmission admission) {
		if (checks.isEmpty()) {
			// only adaptive rules: no rate to evaluate, nothing to record in the request
			return Mono.just(admitted(admission, NO_RATES));
		}
		return Mono.deferContextual((context) -> evaluate(request, checks, admission,
				ReactorObservations.current(context)));
	}

	private Mono<Admitted> evaluate(@Nullable RateLimitRequest request, List<RateLimitCheck> checks,
			@Nullable AdaptiveAdmission admission, @Nullable Observation parent) {
		CompletableFuture<Verdict> evaluation;
		try {
			evaluation = this.observations.evaluateAsync(this.limiter, checks, "method", parent);
		}
		catch (RuntimeException ex) {
			rejected(admission);
			return Mono.error(ex);
		}
		AtomicBoolean delivered = new AtomicBoolean();
		CompletableFuture<Verdict> continued = (request != null) ? this.currentRequest.continueOn(request, evaluation)
				: evaluation;
		return Mono.fromFuture(continued, true).flatMap((verdict) -> {
			delivered.set(true);
			return decided(request, verdict, admission);
		}).doOnError((ex) -> rejected(admission)).doOnCancel(() -> {
			if (!delivered.get()) {
				// cancelled while the store decided: what the verdict holds is given back when it arrives
				evaluation.whenComplete((verdict, failure) -> abandoned(verdict, admission));
			}
		});
	}

	private Mono<Admitted> decided(@Nullable RateLimitRequest request, Verdict verdict,
			@Nullable AdaptiveAdmission admission) {
		if (request != null) {
			this.currentRequest.record(request, verdict);
		}
		if (!verdict.allowed()) {
			LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
			return Mono.error(new RateLimitExceededException(verdict));
		}
		return Mono.just(admitted(admission, verdict));
	}

	private Admitted admitted(@Nullable AdaptiveAdmission admission, Verdict verdict) {
		boolean listened = this.admissionListener.wants(verdict);
		if (!listened && admission == null) {
			return new Admitted(null, null, verdict);
		}
		// ended by a publisher's signal, on whatever thread emits it: its callbacks must not block
		Completion completion = Completion.nonBlocking();
		if (admission != null) {
			completion.onEnd(admission::release);
		}
		if (listened) {
			this.admissionListener.onAdmitted(verdict, completion);
		}
		return new Admitted(completion, null, verdict);
	}

	/** Ends, as aborted, what a verdict that arrived after its subscriber left admitted. */
	private void abandoned(@Nullable Verdict verdict, @Nullable AdaptiveAdmission admission) {
		if (verdict == null || !verdict.allowed()) {
			rejected(admission);
			if (verdict != null) {
				LeaseRelease.releaseDeniedAsync(this.limiter, verdict);
			}
			return;
		}
		Admitted admitted = admitted(admission, verdict);
		if (admitted.completion() != null) {
			admitted.completion().end(Outcome.ABORTED);
		}
	}

	/** Gives back the places of a call that never proceeded; only a permit's first release counts. */
	private static void rejected(@Nullable AdaptiveAdmission admission) {
		if (admission != null) {
			admission.release(Outcome.REJECTED);
		}
	}

	/** Calls a denied subscription's fallback method. */
	@FunctionalInterface
	private interface FallbackCall {

		@Nullable Object call() throws Throwable;

	}

	/**
	 * An admitted subscription, with the completion that ends with it, or a denied one that its fallback answers.
	 *
	 * @param completion ends when the method's publisher terminates or is cancelled; {@code null} when nothing
	 * needs to hear of it
	 * @param fallback calls the fallback of a denied subscription, whose publisher is followed instead of the
	 * method's; {@code null} when admitted
	 * @param verdict the verdict that admitted it; {@code null} for a denied one
	 */
	private record Admitted(@Nullable Completion completion, @Nullable FallbackCall fallback,
			@Nullable Verdict verdict) {

		@SuppressWarnings("unchecked")
		private <P> @Nullable P fallback(Class<P> type) throws Throwable {
			return type.cast(this.fallback.call());
		}

		@SuppressWarnings("unchecked")
		<T> Mono<T> follow(Mono<T> mono) {
			if (this.fallback != null) {
				return Mono.defer(() -> {
					try {
						Mono<T> answer = fallback(Mono.class);
						return (answer != null) ? answer : Mono.empty();
					}
					catch (Throwable ex) {
						return Mono.error(ex);
					}
				});
			}
			Completion completion = this.completion;
			if (completion == null) {
				return mono;
			}
			return mono.doOnSuccess((value) -> completion.end(Outcome.COMPLETED))
				.doOnError((ex) -> completion.end(CallCompletion.outcomeOf(ex), null, ex))
				.doOnCancel(() -> completion.end(Outcome.ABORTED));
		}

		@SuppressWarnings("unchecked")
		<T> Flux<T> follow(Flux<T> flux) {
			if (this.fallback != null) {
				return Flux.defer(() -> {
					try {
						Flux<T> answer = fallback(Flux.class);
						return (answer != null) ? answer : Flux.empty();
					}
					catch (Throwable ex) {
						return Flux.error(ex);
					}
				});
			}
			Completion completion = this.completion;
			if (completion == null) {
				return flux;
			}
			return flux.doOnComplete(() -> completion.end(Outcome.COMPLETED))
				.doOnError((ex) -> completion.end(CallCompletion.outcomeOf(ex), null, ex))
				.doOnCancel(() -> completion.end(Outcome.ABORTED));
		}

	}

}
