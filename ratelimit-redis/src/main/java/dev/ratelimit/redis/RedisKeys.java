package dev.ratelimit.redis;

import java.util.regex.Pattern;

import dev.ratelimit.store.Subjects;

/**
 * Builds store keys {@code <prefix>:{<rule>:<subject>}}. The braces make the whole {@code rule:subject} the Redis
 * Cluster hash tag, so all state of one check lives in one slot.
 * <p>
 * The subject appears in its {@link Subjects#safe key-safe form} (at most 65 characters). With the prefix at most
 * {@value #MAX_PREFIX} bytes and the rule name at most 32, no key exceeds 124 bytes, whatever the client sends.
 */
public final class RedisKeys {

	/** Longest key prefix. */
	public static final int MAX_PREFIX = 24;

	private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._:-]{1," + MAX_PREFIX + "}");

	private final String prefix;

	/**
	 * @param prefix the key prefix, 1 to {@value #MAX_PREFIX} characters of {@code [A-Za-z0-9._:-]}
	 */
	public RedisKeys(String prefix) {
		if (!PREFIX.matcher(prefix).matches()) {
			throw new IllegalArgumentException("Key prefix '" + prefix + "' must be 1 to " + MAX_PREFIX
					+ " characters of letters, digits, '.', '_', ':' or '-'");
		}
		this.prefix = prefix;
	}

	/** Returns the key of a rule's state for a subject. */
	public String key(String rule, String subject) {
		return this.prefix + ":{" + rule + ':' + Subjects.safe(subject) + '}';
	}

}
