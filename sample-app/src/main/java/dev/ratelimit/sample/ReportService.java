package dev.ratelimit.sample;

import java.time.Instant;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.RateLimited;

import org.springframework.stereotype.Service;

/**
 * An expensive operation limited where it is implemented, whoever calls it: 3 reports per minute per user. A denial
 * throws {@code RateLimitExceededException}, which the starter turns into the same 429 response as its filter's.
 */
@Service
public class ReportService {

	@RateLimited(name = "reports", limit = 3, period = "1m", key = "#user")
	public Report generate(String user) {
		return new Report(user, "Monthly report for " + user, Instant.now());
	}

	/**
	 * A summary, which degrades instead of failing: past 5 per minute per user the call answers {@link #lastSummary}
	 * (the fallback method) instead of throwing, so the client gets a 200 with a summary marked as not fresh.
	 */
	@RateLimited(name = "summaries", limit = 5, period = "1m", key = "#user", fallbackMethod = "lastSummary")
	public Summary summary(String user) {
		return new Summary(user, "Summary for " + user, true, 0);
	}

	private Summary lastSummary(String user, RateLimitExceededException denial) {
		return new Summary(user, "Summary for " + user + " (as of the last fresh one)", false,
				denial.getRetryAfter().toSeconds() + 1);
	}

	/**
	 * A summary.
	 *
	 * @param user whose
	 * @param title what it says
	 * @param fresh whether it was computed now, rather than answered by the fallback
	 * @param freshInSeconds when a fresh one can be asked again (0 for a fresh one)
	 */
	public record Summary(String user, String title, boolean fresh, long freshInSeconds) {
	}

	/** A generated report. */
	public record Report(String user, String title, Instant generatedAt) {
	}

}
