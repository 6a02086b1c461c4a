package dev.ratelimit.client;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;

import dev.ratelimit.Verdict;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * Applies an outbound rule to the calls of a {@code RestClient} or {@code RestTemplate}: the calling thread waits for
 * the call's reserved slot (up to the rule's {@code max-wait}), as it waits for the response anyway. Created by
 * {@link RateLimitedClients#interceptor(String)}.
 * <p>
 * A call the rule denies is not made: an {@link OutboundRateLimitExceededException} is thrown. A response of 429, or
 * 503 with {@code Retry-After}, is closed and turned into the same exception, carrying the provider's status and
 * {@code Retry-After}. An interrupted wait gives the slot back and throws {@link InterruptedIOException}.
 */
public final class RateLimitClientInterceptor implements ClientHttpRequestInterceptor {

	private final RateLimitedClients clients;

	private final String rule;

	private final @Nullable String subject;

	RateLimitClientInterceptor(RateLimitedClients clients, String rule, @Nullable String subject) {
		this.clients = clients;
		this.rule = rule;
		this.subject = subject;
	}

	/** Returns the name of the rule it applies. */
	public String getRule() {
		return this.rule;
	}

	@Override
	public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution)
			throws IOException {
		String target = (this.subject != null) ? this.subject : RateLimitedClients.subjectOf(request.getURI());
		Verdict verdict;
		try {
			verdict = this.clients.acquire(this.rule, target);
		}
		catch (CancellationException ex) {
			InterruptedIOException interrupted = new InterruptedIOException(ex.getMessage());
			interrupted.initCause(ex);
			throw interrupted;
		}
		ClientHttpResponse response = execution.execute(request, body);
		OutboundRateLimitExceededException refusal = this.clients.refusal(this.rule, target,
				response.getStatusCode().value(), response.getHeaders().getFirst(HttpHeaders.RETRY_AFTER), verdict);
		if (refusal != null) {
			response.close();
			throw refusal;
		}
		return response;
	}

}
