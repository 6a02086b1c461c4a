package dev.ratelimit.web;

/**
 * Which rate limit headers to send.
 */
public enum HeaderStyle {

	/** {@code RateLimit-Policy} and {@code RateLimit} (draft-ietf-httpapi-ratelimit-headers, Structured Fields). */
	IETF,

	/** {@code X-RateLimit-Limit}, {@code X-RateLimit-Remaining} and {@code X-RateLimit-Reset} (Unix epoch seconds). */
	LEGACY,

	/** Both the IETF and the legacy headers. */
	BOTH,

	/** No rate limit headers ({@code Retry-After} is still sent on rejections). */
	NONE;

	boolean ietf() {
		return this == IETF || this == BOTH;
	}

	boolean legacy() {
		return this == LEGACY || this == BOTH;
	}

}
