package dev.ratelimit.sample;

import java.time.Instant;

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

	/** A generated report. */
	public record Report(String user, String title, Instant generatedAt) {
	}

}
