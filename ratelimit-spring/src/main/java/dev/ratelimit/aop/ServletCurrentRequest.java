package dev.ratelimit.aop;

import dev.ratelimit.RateLimitRequest;
import dev.ratelimit.Verdict;
import dev.ratelimit.web.RateLimitFilter;
import dev.ratelimit.web.RateLimitHeadersWriter;
import dev.ratelimit.web.ServletRateLimitRequests;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The servlet request of the current thread (Spring's {@link RequestContextHolder}). A call's verdict is merged with
 * the one the filter recorded ({@link RateLimitFilter#VERDICT_ATTRIBUTE}) and, while the response is not committed,
 * written as headers.
 */
public final class ServletCurrentRequest implements CurrentRequest {

	private final @Nullable RateLimitHeadersWriter headersWriter;

	private final ServletRateLimitRequests requests;

	/**
	 * @param headersWriter writes the headers, or {@code null} to write none (outside Spring MVC)
	 */
	public ServletCurrentRequest(@Nullable RateLimitHeadersWriter headersWriter) {
		this(headersWriter, ServletRateLimitRequests.defaults());
	}

	/**
	 * @param headersWriter writes the headers, or {@code null} to write none (outside Spring MVC)
	 * @param requests makes the views of requests that keys read (client networks, routes)
	 */
	public ServletCurrentRequest(@Nullable RateLimitHeadersWriter headersWriter, ServletRateLimitRequests requests) {
		this.headersWriter = headersWriter;
		this.requests = requests;
	}

	@Override
	public @Nullable RateLimitRequest get() {
		ServletRequestAttributes attributes = attributes();
		return (attributes != null) ? this.requests.of(attributes.getRequest()) : null;
	}

	@Override
	public void record(RateLimitRequest request, Verdict verdict) {
		HttpServletRequest servletRequest = request.getNativeRequest(HttpServletRequest.class);
		if (servletRequest == null) {
			return;
		}
		Verdict merged = RateLimitFilter.recordVerdict(servletRequest, verdict);
		ServletRequestAttributes attributes = attributes();
		HttpServletResponse response = (attributes != null) ? attributes.getResponse() : null;
		if (this.headersWriter != null && response != null && !response.isCommitted()) {
			this.headersWriter.write(response, merged);
		}
	}

	private static @Nullable ServletRequestAttributes attributes() {
		RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
		return (attributes instanceof ServletRequestAttributes servlet) ? servlet : null;
	}

}
