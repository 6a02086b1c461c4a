package dev.ratelimit.sample;

import dev.ratelimit.KeyResolver;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Maps the request's API key to its plan ({@code free}, {@code pro}, ...), from {@code sample.api-keys}. The
 * {@code search} rule uses it as {@code tier-key: "@apiKeyPlans"}: a request without a known key has no plan and gets
 * the rule's default limit.
 */
@Component("apiKeyPlans")
public class ApiKeyPlans implements KeyResolver {

	private final SampleProperties properties;

	private final String header;

	public ApiKeyPlans(SampleProperties properties, @Value("${ratelimit.api-key-header:X-API-Key}") String header) {
		this.properties = properties;
		this.header = header;
	}

	@Override
	public String resolve(HttpServletRequest request) {
		return planOf(request.getHeader(this.header));
	}

	/** Returns the plan of an API key, or {@code null} for a missing or unknown key. */
	public String planOf(String apiKey) {
		return (apiKey != null) ? this.properties.apiKeys().get(apiKey) : null;
	}

}
