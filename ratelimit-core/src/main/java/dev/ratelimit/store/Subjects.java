package dev.ratelimit.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The key-safe form of a subject, shared by every store and view that keeps subjects: the subject itself when it is
 * at most {@value #MAX_RAW_LENGTH} characters of {@code [A-Za-z0-9._:@-]}, else {@code ~} followed by the unpadded
 * base64url SHA-256 of its UTF-8 bytes (44 characters; {@code ~} never occurs in a raw subject, so a hashed subject
 * cannot collide with a raw one). Whatever a client sends, the safe form is at most 65 characters.
 */
public final class Subjects {

	/** Longest subject kept as it is. */
	public static final int MAX_RAW_LENGTH = 64;

	private Subjects() {
	}

	/** Returns the subject as stores keep it: itself when short and safe, else its hash. */
	public static String safe(String subject) {
		if (subject.length() <= MAX_RAW_LENGTH && isSafe(subject)) {
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
