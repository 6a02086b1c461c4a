package dev.ratelimit.sample;

import java.util.Map;

import dev.ratelimit.sample.redis.EmbeddedRedisMode;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's own settings.
 *
 * @param apiKeys the plan of each API key, e.g. {@code demo-pro-key: pro}
 * @param embeddedRedis when to start an embedded Redis (read before the context starts, listed here for
 * documentation)
 */
@ConfigurationProperties("sample")
public record SampleProperties(Map<String, String> apiKeys, @DefaultValue("auto") EmbeddedRedisMode embeddedRedis) {

	public SampleProperties {
		apiKeys = (apiKeys != null) ? Map.copyOf(apiKeys) : Map.of();
		for (String apiKey : apiKeys.keySet()) {
			if (apiKey.startsWith(ApiKeyPlans.CLIENT_IP_PREFIX)) {
				throw new IllegalArgumentException("API key '" + apiKey + "' in sample.api-keys starts with '"
						+ ApiKeyPlans.CLIENT_IP_PREFIX + "', the prefix of client IPs in the search rule's subjects");
			}
		}
	}

}
