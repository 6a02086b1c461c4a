package dev.ratelimit.sample;

import dev.ratelimit.KeyResolver;
import dev.ratelimit.RateLimitRequest;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Component;

/**
 * Maps the request's API key to its plan ({@code free}, {@code pro}, ...), from {@code sample.api-keys}. The
 * {@code search} rule uses it as {@code tier-key: "@apiKeyPlans"}: a request without a known key has no plan and gets
 * the rule's default limit. Its key, {@link #knownKeyOrClientIp}, keeps requests with invented keys in the client's
 * anonymous budget.
 */
@Component("apiKeyPlans")
public class ApiKeyPlans implements KeyResolver {

	/** Prefix of the client IP subjects of {@link #knownKeyOrClientIp}; no API key may start with it. */
	public static final String CLIENT_IP_PREFIX = "ip:";

	private final SampleProperties properties;

	private final String header;

	public ApiKeyPlans(SampleProperties properties, @Value("${ratelimit.api-key-header:X-API-Key}") String header) {
		this.properties = properties;
		this.header = header;
	}

	@Override
	public String resolve(RateLimitRequest request) {
		return planOf(request.getHeader(this.header));
	}

	/**
	 * Returns the subject of the {@code search} rule: the request's API key when it is a known one, else the client
	 * network as {@code ip:<network>} (the address masked as {@code ratelimit.client-ip.*} says, so one IPv6 customer is
	 * one client). Keyed by the header as sent, every invented key would get a quota of its own; this
	 * way requests without a key and with any unknown key share one budget per client, and the prefix keeps an
	 * address from ever naming a key's quota.
	 */
	public String knownKeyOrClientIp(RateLimitRequest request) {
		String apiKey = request.getHeader(this.header);
		return (planOf(apiKey) != null) ? apiKey : CLIENT_IP_PREFIX + request.clientIp();
	}

	/** Returns the plan of an API key, or {@code null} for a missing or unknown key. */
	public String planOf(String apiKey) {
		return (apiKey != null) ? this.properties.apiKeys().get(apiKey) : null;
	}

}
