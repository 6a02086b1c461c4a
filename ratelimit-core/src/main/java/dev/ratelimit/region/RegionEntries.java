package dev.ratelimit.region;

import java.util.Map;

import dev.ratelimit.RateLimitPolicy;

/**
 * Some entries of one key, as a region ships them to a peer: field ({@code <region>:<window>}, or
 * {@code <region>:<window>:r} for refunds) to cumulative value. The peer keeps the larger of its value and this one.
 *
 * @param policy the key's policy
 * @param subject the key's subject
 * @param fields the entries
 */
public record RegionEntries(RateLimitPolicy policy, String subject, Map<String, Long> fields) {

	public RegionEntries {
		fields = Map.copyOf(fields);
	}

}
