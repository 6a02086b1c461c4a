package dev.ratelimit.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.ratelimit.Completion.Outcome;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.adaptive.ConcurrencyLimiter.Permit;
import dev.ratelimit.rule.RuleMode;
import dev.ratelimit.rule.RulePhase;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.server.PathContainer;

/**
 * The adaptive concurrency limits of this instance, one per {@code adaptive-concurrency} rule, created at start-up.
 * A request takes a place under every limit whose rule matches it, or none: when one is full, the places already
 * taken are given back and the request is denied.
 */
public final class AdaptiveConcurrencyLimits {

	private static final Log logger = LogFactory.getLog(AdaptiveConcurrencyLimits.class);

	private static final AdaptiveConcurrencyLimits NONE = new AdaptiveConcurrencyLimits(List.of());

	private final AdaptiveConcurrencyLimit[] limits;

	/**
	 * @param limits the limits, in rule order
	 */
	public AdaptiveConcurrencyLimits(List<AdaptiveConcurrencyLimit> limits) {
		this.limits = limits.toArray(AdaptiveConcurrencyLimit[]::new);
	}

	/** Returns limits for an application without adaptive rules. */
	public static AdaptiveConcurrencyLimits none() {
		return NONE;
	}

	/** Returns every limit, in rule order. */
	public List<AdaptiveConcurrencyLimit> all() {
		return List.of(this.limits);
	}

	/** Returns the limit of a rule. */
	public Optional<AdaptiveConcurrencyLimit> get(String name) {
		for (AdaptiveConcurrencyLimit limit : this.limits) {
			if (limit.rule().name().equals(name)) {
				return Optional.of(limit);
			}
		}
		return Optional.empty();
	}

	/**
	 * Takes a place under every limit of a phase whose rule matches the request. A shadow rule's full limit is logged
	 * and admits the request without a place.
	 * @param request the request
	 * @param phase the phase whose rules apply, or {@code null} for every rule
	 * @return the admission, or {@code null} when no adaptive rule applies
	 */
	public @Nullable AdaptiveAdmission admit(RateLimitRequest request, @Nullable RulePhase phase) {
		if (this.limits.length == 0) {
			return null;
		}
		PathContainer path = null;
		List<AdaptiveConcurrencyLimit> matching = null;
		for (AdaptiveConcurrencyLimit limit : this.limits) {
			AdaptiveConcurrencyRule rule = limit.rule();
			if (phase != null && rule.phase() != phase) {
				continue;
			}
			if (path == null) {
				path = PathContainer.parsePath(request.path());
			}
			if (rule.match().matches(request, path)) {
				matching = (matching != null) ? matching : new ArrayList<>(2);
				matching.add(limit);
			}
		}
		return (matching != null) ? takePlaces(matching, request.getMethod() + " " + request.getRequestURI()) : null;
	}

	/**
	 * Takes a place under each of the named rules' limits, for a {@code @RateLimited} call that names them.
	 * @param rules the rule names, each one of {@link #get(String) these limits}
	 * @param what the call, for the log of a shadow rule
	 * @return the admission, or {@code null} when it holds no place (no rule is named, or only full shadow ones)
	 * @throws IllegalArgumentException for a name that is not an adaptive rule
	 */
	public @Nullable AdaptiveAdmission admitNamed(List<String> rules, String what) {
		if (rules.isEmpty()) {
			return null;
		}
		List<AdaptiveConcurrencyLimit> named = new ArrayList<>(rules.size());
		for (String rule : rules) {
			named.add(get(rule).orElseThrow(() -> new IllegalArgumentException("no adaptive rule '" + rule + "'")));
		}
		return takePlaces(named, what);
	}

	/** Takes a place under every limit, or none: a full enforced one gives back those taken and denies. */
	private @Nullable AdaptiveAdmission takePlaces(List<AdaptiveConcurrencyLimit> limits, String what) {
		List<Permit> permits = null;
		for (AdaptiveConcurrencyLimit limit : limits) {
			AdaptiveConcurrencyRule rule = limit.rule();
			Permit permit = limit.tryAcquire();
			if (permit != null) {
				permits = (permits != null) ? permits : new ArrayList<>(2);
				permits.add(permit);
			}
			else if (rule.mode() == RuleMode.SHADOW) {
				if (logger.isInfoEnabled()) {
					logger.info("Shadow adaptive concurrency limit '" + rule.name() + "' (" + limit.limit()
							+ ") would have denied " + what);
				}
			}
			else {
				if (permits != null) {
					permits.forEach((taken) -> taken.release(Outcome.REJECTED));
				}
				return AdaptiveAdmission.denied(new AdaptiveDenial(rule.name(), limit.limit(), rule.status()));
			}
		}
		return (permits != null) ? AdaptiveAdmission.admitted(permits) : null;
	}

}
