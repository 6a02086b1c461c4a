package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The partition keys ({@code pk}) of the IETF rate limit headers: an opaque Structured Field Byte Sequence per rule
 * and subject that tells a client which of its requests share a quota, without telling anyone the subject (an IP
 * address, a user name, an API key). It is the first {@value #LENGTH} bytes of the HMAC-SHA256 of the rule name and
 * the subject under a secret, so it cannot be reversed or guessed from a list of likely subjects without the secret.
 * Instances that share a store should share the secret, or a client sees a different key from each of them.
 */
public final class PartitionKeys {

	/** Bytes of the HMAC kept: 96 bits, enough to tell any two partitions apart. */
	public static final int LENGTH = 12;

	private static final String ALGORITHM = "HmacSHA256";

	private final SecretKeySpec secret;

	/**
	 * Creates the partition keys of a secret.
	 * @param secret the secret, at least 16 bytes
	 */
	public PartitionKeys(byte[] secret) {
		if (secret.length < 16) {
			throw new IllegalArgumentException("the partition key secret must be at least 16 bytes");
		}
		this.secret = new SecretKeySpec(Arrays.copyOf(secret, secret.length), ALGORITHM);
	}

	/** Creates the partition keys of a random secret, different in every instance. */
	public static PartitionKeys random() {
		byte[] secret = new byte[32];
		new SecureRandom().nextBytes(secret);
		return new PartitionKeys(secret);
	}

	/**
	 * Returns the partition key of a subject under a rule, as a Structured Field Byte Sequence ({@code :base64:}).
	 * @param rule the rule name
	 * @param subject the subject, as resolved
	 * @return the Byte Sequence
	 */
	public String of(String rule, String subject) {
		byte[] digest;
		try {
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(this.secret);
			mac.update(rule.getBytes(StandardCharsets.UTF_8));
			mac.update((byte) 0);
			digest = mac.doFinal(subject.getBytes(StandardCharsets.UTF_8));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is required of every Java platform", ex);
		}
		return ':' + Base64.getEncoder().encodeToString(Arrays.copyOf(digest, LENGTH)) + ':';
	}

}
