package dev.ratelimit.client;

import dev.ratelimit.Verdict;
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
 * A call the rule denies is not made: the {@code Mono} fails with an {@link OutboundRateLimitExceededException}. A
 * response of 429, or 503 with {@code Retry-After}, has its body released and becomes the same error, carrying the
 * provider's status and {@code Retry-After}.
 */
public final class RateLimitExchangeFilter implements ExchangeFilterFunction {

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
		return Mono.defer(() -> {
			RateLimitedClients.Admission admission = this.clients.admit(this.rule, target);
			// not suppressing cancel: a cancelled subscription cancels the future, which gives the slot back
			Mono<Verdict> slot = Mono.fromFuture(() -> this.clients.limiter().acquireAsync(admission.checks()), false);
			return admission.pause().isZero() ? slot : Mono.delay(admission.pause()).then(slot);
		}).flatMap((verdict) -> verdict.allowed() ? exchange(request, next, target, verdict)
				: Mono.error(OutboundRateLimitExceededException.denied(this.rule, target, verdict)));
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
