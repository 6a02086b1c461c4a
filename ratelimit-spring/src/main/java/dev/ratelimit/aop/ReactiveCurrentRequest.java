package dev.ratelimit.aop;

import java.util.concurrent.CompletableFuture;

import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The web request that a reactive {@link dev.ratelimit.RateLimited} call (a method returning a {@code Mono} or a
 * {@code Flux}) runs in, for {@link RateLimitedAspect}: found in the Reactor context of the subscription, since a
 * reactive call has no thread of its own. The reactive counterpart of {@link CurrentRequest}; without one, every
 * reactive call is outside a request.
 */
@FunctionalInterface
public interface ReactiveCurrentRequest {

	/**
	 * Returns the request that the subscription to a call's publisher serves.
	 * @param context the Reactor context of the subscription
	 * @return the request, or {@code null} outside one
	 */
	@Nullable RateLimitRequest get(ContextView context);

	/**
	 * Resolves what the checks made from a request read and takes I/O to know (the principal, a reactive key), before
	 * the checks are made again from the view it returns. The default has nothing to resolve.
	 * @param request the request, as {@link #get} returned it, after the checks were made from it once
	 * @return the request to make the checks from (the same one when nothing was missing)
	 */
	default Mono<RateLimitRequest> resolve(RateLimitRequest request) {
		return Mono.just(request);
	}

	/**
	 * Records the verdict of a call in the request it runs in, so that the request's headers and verdict describe
	 * the call's rules too. Does nothing by default.
	 * @param request the request, as {@link #get} returned it
	 * @param verdict the verdict of the call's annotations
	 */
	default void record(RateLimitRequest request, Verdict verdict) {
	}

	/**
	 * Returns a future that completes as a call's verdict does, on the thread the request should go on on (the
	 * verdict completes on the store client's I/O thread). The default goes on where the verdict completed.
	 * @param request the request, as {@link #get} returned it
	 * @param verdict the verdict being decided
	 * @return the future to continue the call from
	 */
	default CompletableFuture<Verdict> continueOn(RateLimitRequest request, CompletableFuture<Verdict> verdict) {
		return verdict;
	}

	/**
	 * Returns the current request of reactive calls that never run in a web request.
	 * @return a current request that is always {@code null}
	 */
	static ReactiveCurrentRequest none() {
		return (context) -> null;
	}

}
