package dev.ratelimit.web;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.rule.SettleReport;
import dev.ratelimit.rule.SettleResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.server.ServerWebExchange;

/**
 * The rate limiting of the current web request as its handler sees it: where the handler reports what the request
 * really cost, for the rules that reserved an estimate ({@code cost}) and settle it after the response. Get it with
 * {@link #current()} on the servlet stack (on the request's thread, or in a {@code StreamingResponseBody}), with
 * {@link #from(ServerWebExchange)} on WebFlux; it is thread-safe, so keep it to report from another thread (an
 * {@code SseEmitter}'s producer, a stream's callback).
 * <p>
 * {@link #settle(long)} reports the units of every rule of the request that is settled after the response (a rule
 * with {@code settle}, or with a {@code cost} of its own); {@link #settle(String, long)} those of one rule. The last
 * call wins, and it is settled when the request ends, however it ends: completed, failed, or its client gone
 * mid-stream (report as you produce, and what was produced is charged). A rule that counts requests (no {@code cost},
 * no {@code settle}) is never settled. A request that reports nothing keeps its estimate, unless its rule's
 * {@code settle} source finds the cost in the response; a report from code wins over that source.
 */
public final class RateLimitContext implements SettleReport {

	/** The request (or exchange) attribute that holds a request's context. */
	public static final String ATTRIBUTE = RateLimitContext.class.getName();

	private final Supplier<SettleResponse> response;

	private final AtomicLong sequence = new AtomicLong();

	private final Map<String, Report> byRule = new ConcurrentHashMap<>(2);

	private volatile @Nullable Report all;

	/**
	 * Creates the context of a request; web adapters make one and keep it under {@link #ATTRIBUTE}.
	 * @param response reads the request's response when it ends
	 */
	public RateLimitContext(Supplier<SettleResponse> response) {
		this.response = response;
	}

	/**
	 * Returns the context of the current servlet request, found through Spring MVC's {@link RequestContextHolder}: in
	 * a handler method, and in a {@code StreamingResponseBody} or {@code Callable} it returned. When no rule of the
	 * request is settled after the response, what it reports changes nothing.
	 * @return the context
	 * @throws IllegalStateException when the thread has no current request (get the context in the handler method and
	 * keep it)
	 */
	public static RateLimitContext current() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		if (attributes == null) {
			throw new IllegalStateException("No current request on this thread: call RateLimitContext.current() in the"
					+ " handler method and keep the context to settle from another thread (on WebFlux, use"
					+ " RateLimitContext.from(exchange))");
		}
		if (attributes.getAttribute(ATTRIBUTE, RequestAttributes.SCOPE_REQUEST) instanceof RateLimitContext context) {
			return context;
		}
		RateLimitContext detached = new RateLimitContext(() -> SettleResponse.NONE);
		attributes.setAttribute(ATTRIBUTE, detached, RequestAttributes.SCOPE_REQUEST);
		return detached;
	}

	/**
	 * Returns the context of a WebFlux request. When no rule of the request is settled after the response, what it
	 * reports changes nothing.
	 * @param exchange the request's exchange
	 * @return the context
	 */
	public static RateLimitContext from(ServerWebExchange exchange) {
		return (RateLimitContext) exchange.getAttributes()
			.computeIfAbsent(ATTRIBUTE, (name) -> new RateLimitContext(() -> SettleResponse.NONE));
	}

	/**
	 * Reports what the request cost, in units, under every rule of the request that is settled after the response.
	 * @param units the units, from 0 (it cost nothing: its estimate is given back)
	 * @throws IllegalArgumentException when negative or above {@link RateLimitCheck#MAX_COST}
	 */
	public void settle(long units) {
		this.all = new Report(check(units), this.sequence.incrementAndGet());
	}

	/**
	 * Reports what the request cost, in units, under one rule.
	 * @param rule the rule's name
	 * @param units the units, from 0
	 * @throws IllegalArgumentException when negative or above {@link RateLimitCheck#MAX_COST}
	 */
	public void settle(String rule, long units) {
		this.byRule.put(rule, new Report(check(units), this.sequence.incrementAndGet()));
	}

	@Override
	public @Nullable Long reported(String rule) {
		Report forRule = this.byRule.get(rule);
		Report forAll = this.all;
		Report last = (forRule == null) ? forAll
				: (forAll == null || forRule.sequence() > forAll.sequence()) ? forRule : forAll;
		return (last != null) ? last.units() : null;
	}

	@Override
	public SettleResponse response() {
		return this.response.get();
	}

	private static long check(long units) {
		if (units < 0 || units > RateLimitCheck.MAX_COST) {
			throw new IllegalArgumentException("units must be between 0 and " + RateLimitCheck.MAX_COST + " but was "
					+ units);
		}
		return units;
	}

	private record Report(long units, long sequence) {
	}

}
