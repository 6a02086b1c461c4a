package dev.ratelimit.rule;

import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitListener.ResolutionPart;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.expression.spel.SpelEvaluationException;

/**
 * Makes a rule's fallback visible when its key, tier key or cost cannot be resolved for a request (its expression or
 * {@code KeyResolver} bean threw): every failure goes to the {@link RateLimitListener} (the metrics count it), and a
 * WARN names the rule, the part and the exception's type, at most once per rule and part every
 * {@value #WARNING_INTERVAL_SECONDS} seconds. The WARN never shows a client value: it leaves out the subject and the
 * exception's message, which may quote a header (SpEL quotes the message of what a method threw).
 */
public final class ResolutionFailures {

	/** The shortest time between two warnings about the same part of the same rule. */
	public static final long WARNING_INTERVAL_SECONDS = 10;

	private static final Log logger = LogFactory.getLog(ResolutionFailures.class);

	private static final long NEVER = Long.MIN_VALUE;

	private final Supplier<RateLimitListener> listener;

	private final LongSupplier nanoTime;

	private final long intervalNanos = Duration.ofSeconds(WARNING_INTERVAL_SECONDS).toNanos();

	private final Map<String, AtomicLongArray> lastWarnings = new ConcurrentHashMap<>();

	/**
	 * @param listener the listener told of every failure, looked up at the first failure
	 * @param nanoTime the time source of the warning interval
	 */
	public ResolutionFailures(Supplier<RateLimitListener> listener, LongSupplier nanoTime) {
		this.listener = listener;
		this.nanoTime = nanoTime;
	}

	/** Returns failures that are logged but go to no listener. */
	public static ResolutionFailures logOnly() {
		return new ResolutionFailures(() -> RateLimitListener.NONE, System::nanoTime);
	}

	/**
	 * Reports that a part of a rule could not be resolved, before the rule falls back.
	 * @param rule the rule name
	 * @param part the part
	 * @param failure what its expression or resolver threw
	 */
	public void report(String rule, ResolutionPart part, RuntimeException failure) {
		this.listener.get().onResolutionFailure(rule, part, failure);
		if (logger.isWarnEnabled() && warnNow(rule, part)) {
			logger.warn("Rate limit rule '" + rule + "': its " + part.propertyName() + " could not be resolved ("
					+ describe(failure) + "), " + fallback(part) + ". Failures are counted in"
					+ " ratelimit.key.resolution.failures and logged at most every " + WARNING_INTERVAL_SECONDS
					+ " s per rule and part");
		}
	}

	private boolean warnNow(String rule, ResolutionPart part) {
		AtomicLongArray last = this.lastWarnings.computeIfAbsent(rule, (name) -> {
			long[] never = new long[ResolutionPart.values().length];
			Arrays.fill(never, NEVER);
			return new AtomicLongArray(never);
		});
		long now = this.nanoTime.getAsLong();
		long previous = last.get(part.ordinal());
		if (previous != NEVER && now - previous < this.intervalNanos) {
			return false;
		}
		return last.compareAndSet(part.ordinal(), previous, now);
	}

	private static String describe(Throwable failure) {
		StringBuilder description = new StringBuilder(failure.getClass().getName());
		if (failure instanceof SpelEvaluationException spel) {
			description.append(' ').append(spel.getMessageCode().name());
			if (spel.getPosition() >= 0) {
				description.append(" at position ").append(spel.getPosition()).append(" in the expression");
			}
		}
		Throwable cause = failure.getCause();
		for (int depth = 0; cause != null && depth < 3; depth++, cause = cause.getCause()) {
			description.append(", caused by ").append(cause.getClass().getName());
		}
		return description.toString();
	}

	private static String fallback(ResolutionPart part) {
		return switch (part) {
			case KEY -> "the client IP is used instead";
			case TIER_KEY -> "the rule's own limit is used instead";
			case COST -> "the request costs 1 instead";
			case DISTINCT -> "the client IP is counted as the value instead";
			case ZONE_KEY -> "the rule's zone is used instead";
		};
	}

}
