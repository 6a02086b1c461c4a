package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * Computes the standard rate limit headers of a verdict, whatever the web stack (servlet, WebFlux, a gateway); the
 * stack's writer copies them onto its response. Only the enforced checks are described (shadow checks send none):
 * <ul>
 * <li>IETF (draft-ietf-httpapi-ratelimit-headers-10, Structured Fields): {@code RateLimit-Policy} lists every
 * enforced rule as {@code "<name>";q=<limit>;w=<period in seconds>}, a concurrency rule as
 * {@code "<name>";q=<limit>;qu="concurrent-requests"} (it has no window); {@code RateLimit} describes the most
 * restrictive rule as {@code "<name>";r=<remaining>;t=<seconds until at least one more unit>}, without {@code t}
 * when nothing is used or the rule is a concurrency rule (its slots come back when requests end, at no known
 * time). With {@linkplain PartitionKeys partition keys}, every item also has {@code pk}, a Byte Sequence derived
 * from the rule and the subject;</li>
 * <li>legacy: {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset} of the most
 * restrictive rule, the last being the Unix epoch second (rounded up) at which its quota is fully restored, on the
 * store's clock, so that it is the same on every response that describes the same state.</li>
 * </ul>
 * The most restrictive rule has the fewest remaining, on ties the later reset; of a denied request, it is one of the
 * rules that denied it, so that {@code t} is never later than {@code Retry-After}. Seconds are rounded up. A verdict
 * of an unavailable store gets no headers: a 503 says nothing about the client's quota.
 */
public final class RateLimitHeaders {

	/** The {@code qu} of a concurrency rule. */
	static final String CONCURRENT_REQUESTS = "concurrent-requests";

	private final HeaderStyle style;

	private final Clock clock;

	private final @Nullable PartitionKeys partitionKeys;

	/**
	 * Creates the headers of a style.
	 * @param style which headers to compute
	 * @param clock the clock of the reset instant when the store did not give one
	 * @param partitionKeys the partition keys to send with the IETF headers, or {@code null} for none
	 */
	public RateLimitHeaders(HeaderStyle style, Clock clock, @Nullable PartitionKeys partitionKeys) {
		this.style = style;
		this.clock = clock;
		this.partitionKeys = partitionKeys;
	}

	/**
	 * Returns the headers that describe a verdict.
	 * @param verdict the verdict of every rule that applied to the request
	 * @return the headers, in the order to send them; empty when there is nothing to say
	 */
	public HttpHeaders of(Verdict verdict) {
		HttpHeaders headers = new HttpHeaders();
		if (this.style == HeaderStyle.NONE || verdict.storeUnavailable()) {
			return headers;
		}
		Optional<Integer> restrictive = verdict.mostRestrictiveIndex();
		if (restrictive.isEmpty()) {
			return headers;
		}
		RateLimitCheck check = verdict.checks().get(restrictive.get());
		Decision decision = verdict.decisions().get(restrictive.get());
		if (this.style.ietf()) {
			StringBuilder policies = new StringBuilder();
			for (int i = 0; i < verdict.checks().size(); i++) {
				RateLimitCheck each = verdict.checks().get(i);
				if (each.enforced()) {
					policies.append(policies.isEmpty() ? "" : ", ");
					policy(policies, each, verdict.decisions().get(i));
				}
			}
			headers.set("RateLimit-Policy", policies.toString());
			StringBuilder limit = new StringBuilder().append('"')
				.append(check.policy().name())
				.append("\";r=")
				.append(decision.remaining());
			if (!decision.nextAfter().isZero()) {
				limit.append(";t=").append(ceilSeconds(decision.nextAfter()));
			}
			partitionKey(limit, check);
			headers.set("RateLimit", limit.toString());
		}
		if (this.style.legacy()) {
			headers.set("X-RateLimit-Limit", Long.toString(decision.limit()));
			headers.set("X-RateLimit-Remaining", Long.toString(decision.remaining()));
			headers.set("X-RateLimit-Reset", Long.toString(ceilEpochSecond(resetAt(decision))));
		}
		return headers;
	}

	private void policy(StringBuilder field, RateLimitCheck check, Decision decision) {
		RateLimitPolicy policy = check.policy();
		// a key warming up states the quota in force at its warmth (the decision's), else the policy's
		field.append('"').append(policy.name()).append("\";q=").append(policy.warmsUp() ? decision.limit()
				: policy.limit());
		if (policy.algorithm() == Algorithm.CONCURRENCY) {
			// a cap on requests in flight has no time window: its period is the lease timeout
			field.append(";qu=\"").append(CONCURRENT_REQUESTS).append('"');
		}
		else {
			field.append(";w=").append(Math.max(1, ceilSeconds(policy.period())));
		}
		partitionKey(field, check);
	}

	private void partitionKey(StringBuilder field, RateLimitCheck check) {
		if (this.partitionKeys != null) {
			field.append(";pk=").append(this.partitionKeys.of(check.policy().name(), check.subject()));
		}
	}

	private Instant resetAt(Decision decision) {
		Instant resetAt = decision.resetAt();
		return (resetAt != null) ? resetAt : this.clock.instant().plus(decision.resetAfter());
	}

	private static long ceilEpochSecond(Instant instant) {
		return (instant.getNano() > 0) ? instant.getEpochSecond() + 1 : instant.getEpochSecond();
	}

	/**
	 * Returns a duration in whole seconds, rounded up.
	 * @param duration the duration
	 * @return its seconds, rounded up
	 */
	static long ceilSeconds(Duration duration) {
		long seconds = duration.getSeconds();
		return (duration.getNano() > 0) ? seconds + 1 : seconds;
	}

}
