package dev.ratelimit.lease;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Creates the ids of {@link Lease leases}: a prefix, then a counter in base 36 ({@code q3Jd0vUe4xRk.1z}). The default
 * prefix is 72 random bits drawn once per generator, so that stores on other instances sharing Redis (each with its
 * own generator) practically never draw the same id, at the price of one counter increment per id. A fixed prefix
 * gives the same ids in the same order, which is what tests comparing two stores need.
 */
public final class LeaseIds implements Supplier<String> {

	private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.-]{1,32}");

	private final String prefix;

	private final AtomicLong counter = new AtomicLong();

	/**
	 * Creates a generator of ids that start with the given prefix.
	 * @param prefix 1 to 32 characters of {@code [A-Za-z0-9_.-]}
	 */
	public LeaseIds(String prefix) {
		if (!PREFIX.matcher(prefix).matches()) {
			throw new IllegalArgumentException("Lease id prefix '" + prefix + "' must be 1 to 32 characters of"
					+ " letters, digits, '_', '.' or '-'");
		}
		this.prefix = prefix + '.';
	}

	/** Creates a generator with a random prefix. */
	public static LeaseIds random() {
		byte[] bytes = new byte[9];
		new SecureRandom().nextBytes(bytes);
		return new LeaseIds(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes));
	}

	/** Returns the next id. */
	@Override
	public String get() {
		return this.prefix + Long.toString(this.counter.incrementAndGet(), 36);
	}

}
