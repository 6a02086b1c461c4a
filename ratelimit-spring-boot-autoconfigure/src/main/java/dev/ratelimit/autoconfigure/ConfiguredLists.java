package dev.ratelimit.autoconfigure;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.lists.ListEntry;
import dev.ratelimit.lists.RateLimitLists;

/**
 * Makes the allow and deny lists of {@code ratelimit.lists.*}, failing start-up on an invalid entry or setting with
 * the property that holds it and the fix.
 */
final class ConfiguredLists {

	private static final String FIX = "Use a subject as a rule's key resolves it (e.g. user-42), an IP address"
			+ " (203.0.113.7, 2001:db8::7) or a CIDR network (203.0.113.0/24, 2001:db8::/32)";

	private ConfiguredLists() {
	}

	static RateLimitLists compile(RateLimitProperties.Lists properties, Clock clock,
			Supplier<RateLimitListener> listener) {
		if (properties.getMaxEntries() < 1) {
			throw new InvalidRateLimitConfigurationException("ratelimit.lists.max-entries",
					"must be at least 1 but was " + properties.getMaxEntries(), "Set it to the most entries a list may hold");
		}
		int status = properties.getDenyStatus();
		if (status < 400 || status > 599) {
			throw new InvalidRateLimitConfigurationException("ratelimit.lists.deny-status",
					"must be an error status between 400 and 599 but was " + status, "Use 403 (the default) or 429");
		}
		if (properties.getRefreshInterval().isNegative() || properties.getRefreshInterval().isZero()) {
			throw new InvalidRateLimitConfigurationException("ratelimit.lists.refresh-interval",
					"must be positive but was " + properties.getRefreshInterval(), "Use a duration such as 10s");
		}
		List<ListEntry> deny = entries("ratelimit.lists.deny", properties.getDeny(), properties.getMaxEntries());
		List<ListEntry> allow = entries("ratelimit.lists.allow", properties.getAllow(), properties.getMaxEntries());
		return new RateLimitLists(deny, allow, status, clock, listener);
	}

	private static List<ListEntry> entries(String property, List<String> values, int maxEntries) {
		if (values.size() > maxEntries) {
			throw new InvalidRateLimitConfigurationException(property, "has " + values.size()
					+ " entries, more than ratelimit.lists.max-entries (" + maxEntries + ")",
					"Remove entries, or raise ratelimit.lists.max-entries");
		}
		List<ListEntry> entries = new ArrayList<>(values.size());
		for (int i = 0; i < values.size(); i++) {
			String value = values.get(i);
			try {
				entries.add(ListEntry.parse((value != null) ? value : ""));
			}
			catch (IllegalArgumentException ex) {
				throw new InvalidRateLimitConfigurationException(property + "[" + i + "]", ex.getMessage(), FIX);
			}
		}
		return List.copyOf(entries);
	}

}
