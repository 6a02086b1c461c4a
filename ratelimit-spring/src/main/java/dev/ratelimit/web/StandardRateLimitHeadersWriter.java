package dev.ratelimit.web;

import java.time.Clock;

import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

/**
 * Writes the standard headers of the enforced checks, as {@link RateLimitHeaders} computes them (IETF
 * {@code RateLimit-Policy} and {@code RateLimit}, legacy {@code X-RateLimit-*}, or both), onto a servlet response.
 */
public class StandardRateLimitHeadersWriter implements RateLimitHeadersWriter {

	private final RateLimitHeaders headers;

	/**
	 * Creates a writer that sends no partition keys.
	 * @param style which headers to write
	 * @param clock the clock of the reset instant when the store did not give one
	 */
	public StandardRateLimitHeadersWriter(HeaderStyle style, Clock clock) {
		this(style, clock, null);
	}

	/**
	 * Creates a writer.
	 * @param style which headers to write
	 * @param clock the clock of the reset instant when the store did not give one
	 * @param partitionKeys the partition keys to send with the IETF headers, or {@code null} for none
	 */
	public StandardRateLimitHeadersWriter(HeaderStyle style, Clock clock, @Nullable PartitionKeys partitionKeys) {
		this(new RateLimitHeaders(style, clock, partitionKeys));
	}

	/**
	 * Creates a writer of computed headers.
	 * @param headers the headers to write
	 */
	public StandardRateLimitHeadersWriter(RateLimitHeaders headers) {
		this.headers = headers;
	}

	@Override
	public void write(HttpServletResponse response, Verdict verdict) {
		this.headers.of(verdict).forEach((name, values) -> response.setHeader(name, values.get(0)));
	}

}
