package dev.ratelimit.web;

import java.io.IOException;
import java.util.List;

import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitHeadersWriter;
import dev.ratelimit.RateLimitRejectionHandler;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.rule.RateLimitRules;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Applies the configured rules to every request: match, resolve keys, one {@link RateLimiter} call for all matching
 * rules, write headers, then continue or reject.
 */
public class RateLimitFilter extends OncePerRequestFilter {

	/** Request attribute holding the {@link Verdict} of the request, for the annotation aspect and the application. */
	public static final String VERDICT_ATTRIBUTE = RateLimitFilter.class.getName() + ".verdict";

	private static final Log logger = LogFactory.getLog(RateLimitFilter.class);

	private final RateLimitRules rules;

	private final RateLimiter limiter;

	private final RateLimitHeadersWriter headersWriter;

	private final RateLimitRejectionHandler rejectionHandler;

	public RateLimitFilter(RateLimitRules rules, RateLimiter limiter, RateLimitHeadersWriter headersWriter,
			RateLimitRejectionHandler rejectionHandler) {
		this.rules = rules;
		this.limiter = limiter;
		this.headersWriter = headersWriter;
		this.rejectionHandler = rejectionHandler;
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		List<RateLimitCheck> checks = this.rules.checksFor(request);
		if (checks.isEmpty()) {
			chain.doFilter(request, response);
			return;
		}
		Verdict verdict;
		try {
			verdict = this.limiter.evaluate(checks);
		}
		catch (RuntimeException ex) {
			// The limiter must never turn a request into a 500: admit it, and say so loudly.
			logger.error("Rate limiting failed; the request is admitted unchecked", ex);
			chain.doFilter(request, response);
			return;
		}
		request.setAttribute(VERDICT_ATTRIBUTE, verdict);
		logShadowDenials(request, verdict);
		this.headersWriter.write(response, verdict);
		if (verdict.allowed()) {
			chain.doFilter(request, response);
		}
		else {
			this.rejectionHandler.reject(request, response, verdict);
		}
	}

	static void logShadowDenials(HttpServletRequest request, Verdict verdict) {
		if (!logger.isInfoEnabled()) {
			return;
		}
		for (int i = 0; i < verdict.checks().size(); i++) {
			if (verdict.checks().get(i).shadow() && !verdict.decisions().get(i).allowed()) {
				logger.info("Shadow rate limit '" + verdict.checks().get(i).policy().name() + "' would have denied "
						+ request.getMethod() + " " + request.getRequestURI());
			}
		}
	}

}
