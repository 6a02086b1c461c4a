package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.regex.Pattern;

/**
 * Builds store keys {@code <prefix>:{<rule>:<subject>}}. The braces make the whole {@code rule:subject} the Redis
 * Cluster hash tag, so all state of one check lives in one slot.
 * <p>
 * A subject longer than {@value #MAX_RAW_SUBJECT} bytes or with a byte outside {@code [A-Za-z0-9._:@-]} is replaced by
 * {@code ~} followed by the unpadded base64url SHA-256 of its UTF-8 bytes (44 characters; {@code ~} never occurs in a
 * raw subject, so a hashed subject cannot collide with a raw one). With the prefix at most {@value #MAX_PREFIX} bytes
 * and the rule name at most 32, no key exceeds 124 bytes, whatever the client sends.
 */
public final class RedisKeys {

	/** Longest subject kept as it is. */
	public static final int MAX_RAW_SUBJECT = 64;

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
		return this.prefix + ":{" + rule + ':' + safeSubject(subject) + '}';
	}

	/** Returns the subject as it appears in keys: itself when short and safe, else its hash. */
	public static String safeSubject(String subject) {
		if (subject.length() <= MAX_RAW_SUBJECT && isSafe(subject)) {
			return subject;
		}
		return '~' + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256(subject));
	}

	private static boolean isSafe(String subject) {
		if (subject.isEmpty()) {
			return false;
		}
		for (int i = 0; i < subject.length(); i++) {
			char c = subject.charAt(i);
			boolean safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
					|| c == '_' || c == ':' || c == '@' || c == '-';
			if (!safe) {
				return false;
			}
		}
		return true;
	}

	private static byte[] sha256(String value) {
		try {
			return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is required of every Java platform", ex);
		}
	}

}
