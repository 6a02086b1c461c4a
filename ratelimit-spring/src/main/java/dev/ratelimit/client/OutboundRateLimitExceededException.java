package dev.ratelimit.client;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.DenialStatus;
import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

/**
 * Thrown (or, from a {@code WebClient}, signalled) when an outbound call is not made, or failed, because of a rate
 * limit: the outbound rule denied it ({@link Reason#DENIED}, carrying the {@link #getVerdict() verdict}), the rule's
 * calls to the target are paused after the provider's own {@code Retry-After} ({@link Reason#PAUSED}), or the
 * provider answered {@code 429}, or {@code 503} with {@code Retry-After} ({@link Reason#REMOTE}, carrying its
 * {@link #getRemoteStatus() status} and parsed {@link #getRetryAfter() Retry-After}).
 * <p>
 * An inbound request of this application that fails with it is answered {@code 503} with {@code Retry-After}: a
 * dependency of the server is at its limit, which the client did nothing to cause.
 */
public class OutboundRateLimitExceededException extends RateLimitExceededException {

	private final Reason reason;

	private final String rule;

	private final String target;

	private final int remoteStatus;

	private final @Nullable Duration retryAfter;

	private OutboundRateLimitExceededException(String message, Verdict verdict, Reason reason, String rule,
			String target, int remoteStatus, @Nullable Duration retryAfter) {
		super(message, verdict);
		this.reason = reason;
		this.rule = rule;
		this.target = target;
		this.remoteStatus = remoteStatus;
		this.retryAfter = retryAfter;
	}

	/**
	 * Creates the exception of a call that the outbound rule denied.
	 * @param rule the rule's name
	 * @param target the subject of the call (by default the target's host and port)
	 * @param verdict the denying verdict
	 * @return the exception
	 */
	public static OutboundRateLimitExceededException denied(String rule, String target, Verdict verdict) {
		return new OutboundRateLimitExceededException("Outbound rate limit '" + rule + "' exceeded for " + target
				+ ": retry after " + verdict.retryAfter().toMillis() + " ms", verdict, Reason.DENIED, rule, target, 0,
				verdict.retryAfter());
	}

	/**
	 * Creates the exception of a call not made because the rule's calls to the target are paused.
	 * @param rule the rule's name
	 * @param target the subject of the call
	 * @param left how long the pause lasts from now
	 * @return the exception
	 */
	public static OutboundRateLimitExceededException paused(String rule, String target, Duration left) {
		return new OutboundRateLimitExceededException("Outbound calls under rate limit '" + rule + "' to " + target
				+ " are paused after the provider's Retry-After: retry after " + left.toMillis() + " ms",
				new Verdict(List.of(), List.of()), Reason.PAUSED, rule, target, 0, left);
	}

	/**
	 * Creates the exception of a call that the provider answered with a rate limit status.
	 * @param rule the rule's name
	 * @param target the subject of the call
	 * @param status the provider's status, 429 or 503
	 * @param retryAfter the provider's {@code Retry-After}, or {@code null} when absent or unreadable
	 * @param verdict the verdict that admitted the call
	 * @return the exception
	 */
	public static OutboundRateLimitExceededException remote(String rule, String target, int status,
			@Nullable Duration retryAfter, Verdict verdict) {
		return new OutboundRateLimitExceededException("The provider answered " + status + " to a call under rate limit '"
				+ rule + "' to " + target + ((retryAfter != null) ? ", Retry-After " + retryAfter.toSeconds() + " s" : ""),
				verdict, Reason.REMOTE, rule, target, status, retryAfter);
	}

	/** Returns why the call was not made or failed. */
	public Reason getReason() {
		return this.reason;
	}

	/** Returns the name of the outbound rule. */
	public String getRule() {
		return this.rule;
	}

	/** Returns the subject the rule limited: by default the target's host (and port, when the URI has one). */
	public String getTarget() {
		return this.target;
	}

	/** Returns the provider's status for {@link Reason#REMOTE} (429 or 503), else 0. */
	public int getRemoteStatus() {
		return this.remoteStatus;
	}

	/** Returns whether the provider itself refused the call. */
	public boolean isRemote() {
		return this.reason == Reason.REMOTE;
	}

	/**
	 * Returns how long to wait before retrying: the rule's wait when it denied, the pause left when paused, the
	 * provider's {@code Retry-After} when it refused (zero when it sent none that could be read).
	 */
	@Override
	public Duration getRetryAfter() {
		return (this.retryAfter != null) ? this.retryAfter : Duration.ZERO;
	}

	/** Returns {@link DenialStatus#SERVICE_UNAVAILABLE}: a dependency is at its limit, not the inbound client. */
	@Override
	public DenialStatus getStatus() {
		return DenialStatus.SERVICE_UNAVAILABLE;
	}

	/** Why an outbound call was not made or failed. */
	public enum Reason {

		/** The outbound rule denied it (its wait would exceed the rule's {@code max-wait}). */
		DENIED,

		/** The rule's calls to the target are paused after the provider's {@code Retry-After}. */
		PAUSED,

		/** The provider answered 429, or 503 with {@code Retry-After}. */
		REMOTE

	}

}
