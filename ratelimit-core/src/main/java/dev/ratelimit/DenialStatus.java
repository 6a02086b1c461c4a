package dev.ratelimit;

/**
 * How a denial is answered: whether the client asked for too much (429 Too Many Requests: it can slow down) or the
 * server cannot take more right now (503 Service Unavailable: the client did nothing wrong). Each check carries its
 * rule's status ({@code ratelimit.rules.<name>.status}); a {@link Verdict} answers with
 * {@link Verdict#denialStatus()}.
 * <p>
 * By default a rule's denials are {@link #TOO_MANY_REQUESTS}, except a {@code concurrency} rule whose key is shared by
 * every client ({@code global}, {@code endpoint}, or both): it protects the server itself, so its denials are
 * {@link #SERVICE_UNAVAILABLE}; and an {@code adaptive-concurrency} rule's, 503 too.
 */
public enum DenialStatus {

	/** 429 Too Many Requests: this client's quota or concurrency cap is used up. */
	TOO_MANY_REQUESTS(429),

	/** 503 Service Unavailable: the server is at a limit shared by every client. */
	SERVICE_UNAVAILABLE(503);

	private final int code;

	DenialStatus(int code) {
		this.code = code;
	}

	/** Returns the HTTP status code, 429 or 503. */
	public int code() {
		return this.code;
	}

	/**
	 * Returns the status of an HTTP status code.
	 * @param code 429 or 503
	 * @return the status
	 * @throws IllegalArgumentException for any other code
	 */
	public static DenialStatus of(int code) {
		for (DenialStatus status : values()) {
			if (status.code == code) {
				return status;
			}
		}
		throw new IllegalArgumentException("status must be 429 or 503 but was " + code);
	}

}
