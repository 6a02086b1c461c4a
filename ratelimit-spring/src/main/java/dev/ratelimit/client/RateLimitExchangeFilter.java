package dev.ratelimit.client;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.observation.RateLimitObservations;
import dev.ratelimit.observation.ReactorObservations;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;

/**
 * Applies an outbound rule to the calls of a {@code WebClient}, without holding a thread while a call waits for its
 * reserved slot: the slot is a {@link dev.ratelimit.RateLimiter#acquireAsync future} completed by a timer (and a pause
 * after the provider's {@code Retry-After} a {@link Mono#delay delay}). A subscriber that cancels while the call
 * waits cancels the future, which gives the reserved slot back. Created by
 * {@link RateLimitedWebClients#filter(String)}.
 * <p>
 * Each decision is a {@code ratelimit.decision} observation (caller {@code outbound}) under the observation found in
 * the Reactor context, which is the {@code WebClient}'s own {@code http.client.requests} when the client has an
 * observation registry (its filters run inside it), and a wait for a reserved slot a {@code ratelimit.slot.wait}
 * beside it; with observations off the slot is the limiter's {@link RateLimiter#acquireAsync} future.
 * <p>
 * A call the rule denies is not made: the {@code Mono} fails with an {@link OutboundRateLimitExceededException}. A
 * response of 429, or 503 with {@code Retry-After}, has its body released and becomes the same error, carrying the
 * provider's status and {@code Retry-After}.
 */
public final class RateLimitExchangeFilter implements ExchangeFilterFunction {

	private static final String CALLER = "outbound";

	private final RateLimitedClients clients;

	private final String rule;

	private final @Nullable String subject;

	RateLimitExchangeFilter(RateLimitedClients clients, String rule, @Nullable String subject) {
		this.clients = clients;
		this.rule = rule;
		this.subject = subject;
	}

	/** Returns the name of the rule it applies. */
	public String getRule() {
		return this.rule;
	}

	@Override
	public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
		String target = (this.subject != null) ? this.subject : RateLimitedClients.subjectOf(request.url());
		return Mono.deferContextual((context) -> {
			RateLimitedClients.Admission admission = this.clients.admit(this.rule, target);
			Observation parent = ReactorObservations.current(context);
			Mono<Verdict> slot = Mono.defer(() -> slot(admission.checks(), parent));
			return admission.pause().isZero() ? slot : Mono.delay(admission.pause()).then(slot);
		}).flatMap((verdict) -> verdict.allowed() ? exchange(request, next, target, verdict)
				: Mono.error(OutboundRateLimitExceededException.denied(this.rule, target, verdict)));
	}

	/** The verdict of a call's checks, at its reserved slot; a cancelled subscription gives the slot back. */
	private Mono<Verdict> slot(List<RateLimitCheck> checks, @Nullable Observation parent) {
		RateLimiter limiter = this.clients.limiter();
		RateLimitObservations observations = this.clients.observations();
		if (!observations.enabled()) {
			// not suppressing cancel: a cancelled subscription cancels the future, which gives the slot back
			return Mono.fromFuture(() -> limiter.acquireAsync(checks), false);
		}
		CompletableFuture<Verdict> evaluation = observations.evaluateAsync(limiter, checks, CALLER, parent);
		AtomicBoolean delivered = new AtomicBoolean();
		return Mono.fromFuture(evaluation, true).flatMap((verdict) -> {
			delivered.set(true);
			return (!verdict.allowed() || verdict.delay().isZero()) ? Mono.just(verdict)
					: waitForSlot(limiter, observations, verdict, parent);
		}).doOnCancel(() -> {
			if (!delivered.get()) {
				// cancelled while the store decided: the reservation made meanwhile is given back when it arrives
				evaluation.thenAccept((verdict) -> {
					if (verdict.allowed() && !verdict.delay().isZero()) {
						limiter.cancelAsync(verdict);
					}
				});
			}
		});
	}

	private static Mono<Verdict> waitForSlot(RateLimiter limiter, RateLimitObservations observations, Verdict verdict,
			@Nullable Observation parent) {
		return Mono.defer(() -> {
			Observation wait = observations.startWait(verdict, CALLER, parent);
			return Mono.delay(verdict.delay()).thenReturn(verdict).doOnSuccess((slot) -> wait.stop()).doOnCancel(() -> {
				limiter.cancelAsync(verdict);
				wait.error(new CancellationException("the call stopped waiting for its slot"));
				wait.stop();
			});
		});
	}

	private Mono<ClientResponse> exchange(ClientRequest request, ExchangeFunction next, String target,
			Verdict verdict) {
		return next.exchange(request).flatMap((response) -> {
			OutboundRateLimitExceededException refusal = this.clients.refusal(this.rule, target,
					response.statusCode().value(), response.headers().asHttpHeaders().getFirst(HttpHeaders.RETRY_AFTER),
					verdict);
			return (refusal != null) ? response.releaseBody().then(Mono.error(refusal)) : Mono.just(response);
		});
	}

}
