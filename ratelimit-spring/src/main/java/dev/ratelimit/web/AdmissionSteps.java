package dev.ratelimit.web;

import dev.ratelimit.AdmissionListener;
import dev.ratelimit.Completion;
import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveAdmission;
import dev.ratelimit.adaptive.AdaptiveConcurrencyLimits;
import dev.ratelimit.rule.CostSettlement;
import dev.ratelimit.rule.SettleReport;
import dev.ratelimit.rule.RulePhase;
import org.apache.commons.logging.Log;
import org.jspecify.annotations.Nullable;

/**
 * The steps of a request's admission that every web adapter (the servlet filter, the WebFlux filter) takes alike,
 * each of which must never fail the request: a failing adaptive limit or admission listener is logged and the request
 * proceeds.
 */
public final class AdmissionSteps {

	private AdmissionSteps() {
	}

	/**
	 * Returns the places a request took under adaptive limits.
	 * @param limits the adaptive concurrency limits
	 * @param request the request
	 * @param phase the phase whose limits apply, or {@code null} for every limit
	 * @param logger where a failure is logged
	 * @return the places, or {@code null} when none applies (or the limits failed)
	 */
	public static @Nullable AdaptiveAdmission admit(AdaptiveConcurrencyLimits limits, RateLimitRequest request,
			@Nullable RulePhase phase, Log logger) {
		try {
			return limits.admit(request, phase);
		}
		catch (RuntimeException ex) {
			logger.error("Adaptive concurrency limiting failed; the request is admitted unchecked", ex);
			return null;
		}
	}

	/**
	 * Returns whether an admission listener needs to follow a request.
	 * @param listener the listener
	 * @param verdict the verdict that admitted the request
	 * @param logger where a failure is logged
	 * @return whether it does ({@code false} when it failed)
	 */
	public static boolean wanted(AdmissionListener listener, Verdict verdict, Log logger) {
		try {
			return listener.wants(verdict);
		}
		catch (RuntimeException ex) {
			logger.error("An admission listener failed; the request proceeds", ex);
			return false;
		}
	}

	/**
	 * Tells an admission listener of an admitted request.
	 * @param listener the listener
	 * @param verdict the verdict that admitted it
	 * @param completion ends with the request
	 * @param logger where a failure is logged
	 */
	public static void admitted(AdmissionListener listener, Verdict verdict, Completion completion, Log logger) {
		try {
			listener.onAdmitted(verdict, completion);
		}
		catch (RuntimeException ex) {
			logger.error("An admission listener failed; the request proceeds", ex);
		}
	}

	/**
	 * Returns whether an admitted request consumed units that are settled after the response.
	 * @param settlement the cost settlement, or {@code null} without one
	 * @param verdict the verdict that admitted the request
	 * @param logger where a failure is logged
	 * @return whether it did ({@code false} when the check failed)
	 */
	public static boolean settles(@Nullable CostSettlement settlement, Verdict verdict, Log logger) {
		try {
			return settlement != null && settlement.wants(verdict);
		}
		catch (RuntimeException ex) {
			logger.error("Settling the cost of a request failed; it keeps its estimate", ex);
			return false;
		}
	}

	/**
	 * Follows an admitted request to its end to settle its cost.
	 * @param settlement the cost settlement
	 * @param verdict the verdict that admitted it
	 * @param completion ends with the request
	 * @param report what the request reports when it ends
	 * @param logger where a failure is logged
	 */
	public static void followSettlement(CostSettlement settlement, Verdict verdict, Completion completion,
			SettleReport report, Log logger) {
		try {
			settlement.follow(verdict, completion, report);
		}
		catch (RuntimeException ex) {
			logger.error("Settling the cost of a request failed; it keeps its estimate", ex);
		}
	}

	/**
	 * Logs, at INFO, each shadow rule that would have denied a request.
	 * @param logger the logger
	 * @param verdict the verdict
	 * @param method the request's method
	 * @param path the request's path
	 */
	public static void logShadowDenials(Log logger, Verdict verdict, String method, String path) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (verdict.checks().get(i).shadow() && !verdict.decisions().get(i).allowed()) {
				logger.info("Shadow rate limit '" + verdict.checks().get(i).policy().name() + "' would have denied "
						+ method + " " + path);
			}
		}
	}

}
