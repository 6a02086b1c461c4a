package dev.ratelimit.client;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.observation.RateLimitObservationAware;
import dev.ratelimit.observation.RateLimitObservations;
import org.jspecify.annotations.Nullable;

/**
 * Applies named rules from {@code application.yml} to outbound calls: each call takes one unit of the rule for its
 * target, waiting up to the rule's {@code max-wait} for a slot reserved in the shared store (so every instance sharing
 * the store keeps to the provider's cap together), and is refused with an
 * {@link OutboundRateLimitExceededException} otherwise.
 * <p>
 * <pre class="code">
 * RestClient payments = RestClient.builder()
 *     .baseUrl("https://api.payments.example")
 *     .requestInterceptor(rateLimitedClients.interceptor("payments-api"))
 *     .build();
 * </pre>
 * The subject of a call is its target's host (with the port when the URI names one), so one rule applied to clients
 * of several providers limits each on its own; {@link #interceptor(String, String)} fixes the subject instead (a
 * provider reached through several hosts that share one quota). The rule's {@code key}, {@code match}, {@code cost}
 * and tiers are not used: a call costs one unit of the rule's policy.
 * <p>
 * The provider's own refusals are honoured: a {@code 429}, or a {@code 503} with {@code Retry-After}, becomes an
 * {@link OutboundRateLimitExceededException} of {@link OutboundRateLimitExceededException.Reason#REMOTE} carrying the
 * parsed {@code Retry-After}; with {@code pauseOnRetryAfter}, the rule's calls to that target in this instance are
 * paused that long (at most {@code maxPause}): calls that may wait as long wait for the end of the pause, the others
 * are refused at once.
 */
public class RateLimitedClients implements RateLimitObservationAware {

	private static final long PAUSES_KEPT = 10_000;

	private final RateLimiter limiter;

	private RateLimitObservations observations = RateLimitObservations.NONE;

	private final RateLimitRules rules;

	private final boolean pauseOnRetryAfter;

	private final Duration maxPause;

	private final Clock clock;

	private final LongSupplier nanoTime;

	private final Cache<Target, Long> pausedUntil;

	/**
	 * Creates outbound limits that do not pause after a provider's {@code Retry-After}.
	 * @param limiter the limiter
	 * @param rules the rules in effect, looked up by name on every call (so overrides and reloads apply)
	 */
	public RateLimitedClients(RateLimiter limiter, RateLimitRules rules) {
		this(limiter, rules, false, Duration.ofMinutes(1), Clock.systemUTC(), System::nanoTime);
	}

	/**
	 * @param limiter the limiter
	 * @param rules the rules in effect, looked up by name on every call (so overrides and reloads apply)
	 * @param pauseOnRetryAfter whether a provider's refusal with {@code Retry-After} pauses the rule's calls to that
	 * target in this instance
	 * @param maxPause the longest such pause
	 * @param clock the clock an HTTP date in {@code Retry-After} is measured from
	 * @param nanoTime the monotonic time pauses are measured on
	 */
	public RateLimitedClients(RateLimiter limiter, RateLimitRules rules, boolean pauseOnRetryAfter, Duration maxPause,
			Clock clock, LongSupplier nanoTime) {
		if (maxPause.isNegative() || maxPause.isZero()) {
			throw new IllegalArgumentException("maxPause must be positive");
		}
		this.limiter = limiter;
		this.rules = rules;
		this.pauseOnRetryAfter = pauseOnRetryAfter;
		this.maxPause = maxPause;
		this.clock = clock;
		this.nanoTime = nanoTime;
		this.pausedUntil = Caffeine.newBuilder().maximumSize(PAUSES_KEPT).build();
	}

	/**
	 * Returns an interceptor for {@code RestClient} and {@code RestTemplate} that applies a rule to each call, the
	 * call's subject being its target's host.
	 * @param rule the rule's name
	 * @return the interceptor
	 * @throws IllegalArgumentException when there is no such rule or it cannot limit outbound calls
	 */
	public RateLimitClientInterceptor interceptor(String rule) {
		check(rule);
		return new RateLimitClientInterceptor(this, rule, null);
	}

	/**
	 * Returns an interceptor for {@code RestClient} and {@code RestTemplate} that applies a rule to each call under
	 * one subject, whatever its target.
	 * @param rule the rule's name
	 * @param subject the subject of every call
	 * @return the interceptor
	 * @throws IllegalArgumentException when there is no such rule or it cannot limit outbound calls
	 */
	public RateLimitClientInterceptor interceptor(String rule, String subject) {
		check(rule);
		return new RateLimitClientInterceptor(this, rule, Objects.requireNonNull(subject, "subject"));
	}

	/**
	 * Sets the observations of the decisions on outbound calls made through {@link #acquire} (none by default).
	 * @param observations the observations
	 */
	@Override
	public void setObservations(RateLimitObservations observations) {
		this.observations = observations;
	}

	/**
	 * Checks that a rule exists and can limit outbound calls: a rate rule (not {@code concurrency},
	 * {@code adaptive-concurrency} or {@code distinct}) without {@code count-when}.
	 * @param name the rule's name
	 * @throws IllegalArgumentException naming what is wrong
	 */
	public void check(String name) {
		RateLimitRule rule = this.rules.get(name).orElseThrow(() -> new IllegalArgumentException(
				"there is no rule '" + name + "' (define it under ratelimit.rules." + name + ")"));
		Algorithm algorithm = rule.policy().algorithm();
		if (algorithm == Algorithm.CONCURRENCY || algorithm == Algorithm.DISTINCT) {
			throw new IllegalArgumentException("rule '" + name + "' is a " + algorithm.configName()
					+ " rule; outbound calls take one unit of a rate rule (gcra, token-bucket, leaky-bucket, or a window)");
		}
		if (rule.countWhen() != null) {
			throw new IllegalArgumentException("rule '" + name + "' has count-when, which outbound calls do not apply;"
					+ " use a rule without it");
		}
	}

	/**
	 * Takes one unit of a rule for an outbound call, blocking until its reserved slot (and, while the rule's calls to
	 * the target are paused, until the pause ends) when that is within the rule's {@code max-wait}.
	 * @param rule the rule's name
	 * @param target the call's subject
	 * @return the verdict that admitted the call
	 * @throws OutboundRateLimitExceededException when the call may not be made now
	 * @throws CancellationException when the thread is interrupted while it waits (a reserved slot is given back, the
	 * interrupt status kept)
	 */
	public Verdict acquire(String rule, String target) {
		Admission admission = admit(rule, target);
		long pause = admission.pause().toNanos();
		if (pause > 0) {
			long deadline = this.nanoTime.getAsLong() + pause;
			for (long left = pause; left > 0; left = deadline - this.nanoTime.getAsLong()) {
				LockSupport.parkNanos(left);
				if (Thread.currentThread().isInterrupted()) {
					throw new CancellationException("Interrupted while waiting for a paused outbound rate limit");
				}
			}
		}
		Verdict verdict = this.observations.awaitSlot(this.limiter,
				this.observations.evaluate(this.limiter, admission.checks(), "outbound"), "outbound");
		if (!verdict.allowed()) {
			throw OutboundRateLimitExceededException.denied(rule, target, verdict);
		}
		return verdict;
	}

	/**
	 * Returns how long the rule's calls to a target remain paused in this instance (zero when they are not).
	 * @param rule the rule's name
	 * @param target the subject
	 * @return the pause left
	 */
	public Duration pausedFor(String rule, String target) {
		Long until = this.pausedUntil.getIfPresent(new Target(rule, target));
		if (until == null) {
			return Duration.ZERO;
		}
		long left = until - this.nanoTime.getAsLong();
		if (left <= 0) {
			this.pausedUntil.asMap().remove(new Target(rule, target), until);
			return Duration.ZERO;
		}
		return Duration.ofNanos(left);
	}

	/** Returns the limiter the calls are checked with. */
	RateLimiter limiter() {
		return this.limiter;
	}

	/** Returns the observations of the calls' decisions. */
	RateLimitObservations observations() {
		return this.observations;
	}

	/**
	 * Returns the checks of a call and the pause to wait first.
	 * @throws OutboundRateLimitExceededException when the call is paused longer than the rule's {@code max-wait}
	 * @throws IllegalStateException when the rule no longer exists (a reload removed it)
	 */
	Admission admit(String name, String target) {
		RateLimitRule rule = this.rules.get(name)
			.orElseThrow(() -> new IllegalStateException("Outbound rate limit rule '" + name + "' no longer exists"));
		RateLimitCheck check = rule.check(rule.policy(), target, 1);
		Duration pause = pausedFor(name, target);
		if (!pause.isZero()) {
			if (pause.compareTo(check.maxWait()) > 0) {
				throw OutboundRateLimitExceededException.paused(name, target, pause);
			}
			check = check.withMaxWait(check.maxWait().minus(pause));
		}
		return new Admission(List.of(check), pause);
	}

	/**
	 * Returns the exception for a provider's response that refuses the call for its rate (429, or 503 with
	 * {@code Retry-After}), pausing the rule's calls to the target when configured; {@code null} for any other
	 * response.
	 * @param rule the rule's name
	 * @param target the call's subject
	 * @param status the response's status code
	 * @param retryAfter the response's {@code Retry-After}, if any
	 * @param verdict the verdict that admitted the call
	 * @return the exception to raise, or {@code null}
	 */
	@Nullable OutboundRateLimitExceededException refusal(String rule, String target, int status,
			@Nullable String retryAfter, Verdict verdict) {
		if (status != 429 && !(status == 503 && retryAfter != null)) {
			return null;
		}
		Duration wait = RetryAfter.parse(retryAfter, this.clock);
		if (this.pauseOnRetryAfter && wait != null && !wait.isZero()) {
			long until = this.nanoTime.getAsLong() + ((wait.compareTo(this.maxPause) > 0) ? this.maxPause : wait).toNanos();
			this.pausedUntil.asMap().merge(new Target(rule, target), until, Math::max);
		}
		return OutboundRateLimitExceededException.remote(rule, target, status, wait, verdict);
	}

	/**
	 * Returns the subject of a call to a URI: its host in lower case, with the port when the URI names one.
	 * @param uri the call's URI
	 * @return the subject
	 */
	public static String subjectOf(URI uri) {
		String host = uri.getHost();
		if (host == null) {
			String authority = uri.getRawAuthority();
			return (authority != null) ? authority.toLowerCase(Locale.ROOT) : "unknown";
		}
		host = host.toLowerCase(Locale.ROOT);
		return (uri.getPort() != -1) ? host + ":" + uri.getPort() : host;
	}

	/**
	 * The checks of a call and the pause to wait before them.
	 *
	 * @param checks the checks, with what is left of the rule's {@code max-wait} after the pause
	 * @param pause the pause left, zero when not paused
	 */
	record Admission(List<RateLimitCheck> checks, Duration pause) {
	}

	private record Target(String rule, String subject) {
	}

}
