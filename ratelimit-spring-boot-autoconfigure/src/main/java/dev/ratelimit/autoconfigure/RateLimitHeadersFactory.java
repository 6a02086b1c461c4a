package dev.ratelimit.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.time.Clock;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.web.PartitionKeys;
import dev.ratelimit.web.RateLimitHeaders;
import org.jspecify.annotations.Nullable;

/**
 * Makes the {@link RateLimitHeaders} that {@code ratelimit.headers.*} describe, for every web stack.
 */
final class RateLimitHeadersFactory {

	private RateLimitHeadersFactory() {
	}

	static RateLimitHeaders headers(RateLimitProperties properties, Clock clock) {
		RateLimitProperties.Headers headers = properties.getHeaders();
		return new RateLimitHeaders(headers.getStyle(), clock, partitionKeys(headers));
	}

	private static @Nullable PartitionKeys partitionKeys(RateLimitProperties.Headers headers) {
		String secret = headers.getPartitionKeySecret();
		if (!headers.isPartitionKey()) {
			return null;
		}
		if (secret == null) {
			return PartitionKeys.random();
		}
		byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
		if (bytes.length < 16) {
			throw new InvalidRateLimitConfigurationException("ratelimit.headers.partition-key-secret",
					"it is shorter than 16 bytes, so partition keys could be reversed by trying secrets",
					"Set a random secret of at least 16 characters, the same on every instance");
		}
		return new PartitionKeys(bytes);
	}

}
