package dev.ratelimit.rule;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;

/**
 * The response of a request as a rule's {@code settle} source reads it when the request ends: the root object of a
 * {@code settle} expression ({@code #{headers.getFirst('X-Usage-Tokens')}}, {@code #{status == 200 ? ... : 0}}),
 * whose properties are also the variables {@code #status} and {@code #headers}.
 *
 * @param status the response status, or {@code null} when the request ended without one
 * @param headers the response headers, read-only
 */
public record SettleResponse(@Nullable Integer status, HttpHeaders headers) {

	/** A response without a status or headers (a call, or a request whose response could not be read). */
	public static final SettleResponse NONE = new SettleResponse(null, HttpHeaders.readOnlyHttpHeaders(new HttpHeaders()));

	/** Returns the status (SpEL reads {@code status} through this getter). */
	public @Nullable Integer getStatus() {
		return this.status;
	}

	/** Returns the headers (SpEL reads {@code headers} through this getter). */
	public HttpHeaders getHeaders() {
		return this.headers;
	}

}
