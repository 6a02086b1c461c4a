package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletResponse;

/**
 * Writes the standard headers of the enforced checks (shadow checks send none):
 * <ul>
 * <li>IETF (draft-ietf-httpapi-ratelimit-headers): {@code RateLimit-Policy} lists every enforced rule as
 * {@code "<name>";q=<limit>;w=<window seconds>}; {@code RateLimit: "<name>";r=<remaining>;t=<seconds until reset>}
 * for the most restrictive rule;</li>
 * <li>legacy: {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset} (Unix epoch
 * seconds) of the most restrictive rule.</li>
 * </ul>
 * The most restrictive rule has the fewest remaining; on ties, the later reset. Seconds are rounded up.
 */
public class StandardRateLimitHeadersWriter implements RateLimitHeadersWriter {

	private final HeaderStyle style;

	private final Clock clock;

	public StandardRateLimitHeadersWriter(HeaderStyle style, Clock clock) {
		this.style = style;
		this.clock = clock;
	}

	@Override
	public void write(HttpServletResponse response, Verdict verdict) {
		if (this.style == HeaderStyle.NONE || verdict.storeUnavailable()) {
			// a 503 says nothing about the client's quota
			return;
		}
		Optional<Integer> restrictive = verdict.mostRestrictiveIndex();
		if (restrictive.isEmpty()) {
			return;
		}
		RateLimitCheck check = verdict.checks().get(restrictive.get());
		Decision decision = verdict.decisions().get(restrictive.get());
		long resetSeconds = ceilSeconds(decision.resetAfter());
		if (this.style.ietf()) {
			StringBuilder policies = new StringBuilder();
			for (RateLimitCheck each : verdict.checks()) {
				if (each.enforced()) {
					policies.append(policies.isEmpty() ? "" : ", ")
						.append('"')
						.append(each.policy().name())
						.append("\";q=")
						.append(each.policy().limit())
						.append(";w=")
						.append(Math.max(1, ceilSeconds(each.policy().period())));
				}
			}
			response.setHeader("RateLimit-Policy", policies.toString());
			response.setHeader("RateLimit",
					"\"" + check.policy().name() + "\";r=" + decision.remaining() + ";t=" + resetSeconds);
		}
		if (this.style.legacy()) {
			response.setHeader("X-RateLimit-Limit", Long.toString(decision.limit()));
			response.setHeader("X-RateLimit-Remaining", Long.toString(decision.remaining()));
			long nowMillis = this.clock.millis();
			long resetEpoch = Math.floorDiv(nowMillis + decision.resetAfter().toMillis() + 999, 1000);
			response.setHeader("X-RateLimit-Reset", Long.toString(resetEpoch));
		}
	}

	/** Returns a duration in whole seconds, rounded up. */
	static long ceilSeconds(Duration duration) {
		long seconds = duration.getSeconds();
		return (duration.getNano() > 0) ? seconds + 1 : seconds;
	}

}
