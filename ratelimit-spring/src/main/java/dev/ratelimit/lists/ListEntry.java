package dev.ratelimit.lists;

import java.util.Set;

import dev.ratelimit.ClientIp;
import dev.ratelimit.RateLimitPolicy;
import org.jspecify.annotations.Nullable;

/**
 * One entry of an allow or deny list: a subject as a rule's key resolves it (a user id, an API key, ...), or a client
 * network (an IPv4 or IPv6 address, alone or in CIDR notation), which matches the client address as the starter
 * resolves it (the web server's remote address; {@code X-Forwarded-For} only as {@code server.forward-headers-strategy}
 * says).
 *
 * @param text the entry in its canonical form: a network as its masked address with its prefix length
 * ({@code 203.0.113.0/24}, {@code 2001:db8::/32}; an address alone when the prefix is the whole address), a subject as
 * given (trimmed)
 * @param network the network's address bytes (4 or 16), or {@code null} for a subject
 * @param prefixLength the network's prefix length (0 for a subject)
 * @param rules the rules an allow entry skips, empty for every rule (always empty on the deny list)
 * @param expiresAtMillis when the entry lapses (epoch milliseconds), or 0 when it lasts until removed
 */
public record ListEntry(String text, byte @Nullable [] network, int prefixLength, Set<String> rules,
		long expiresAtMillis) {

	/** The longest entry. */
	public static final int MAX_LENGTH = 512;

	public ListEntry {
		rules = Set.copyOf(rules);
	}

	/**
	 * Parses an entry.
	 * @param value the entry as written, e.g. {@code 203.0.113.0/24}, {@code 2001:db8::/32}, {@code user-42}
	 * @return the entry, lasting until removed, for every rule
	 * @throws IllegalArgumentException with the reason when it is blank, too long, or a malformed address or network
	 */
	public static ListEntry parse(String value) {
		String text = value.trim();
		if (text.isEmpty()) {
			throw new IllegalArgumentException("an entry must not be blank");
		}
		if (text.length() > MAX_LENGTH) {
			throw new IllegalArgumentException("an entry is at most " + MAX_LENGTH + " characters");
		}
		int slash = text.indexOf('/');
		String address = (slash >= 0) ? text.substring(0, slash) : text;
		byte[] bytes = ClientIp.addressBytes(address);
		if (bytes == null) {
			if (looksLikeIpv4(address)) {
				throw new IllegalArgumentException("'" + text + "' is not a valid IPv4 address or network");
			}
			return new ListEntry(text, null, 0, Set.of(), 0);
		}
		int bits = bytes.length * 8;
		int prefix = bits;
		if (slash >= 0) {
			String length = text.substring(slash + 1);
			try {
				prefix = Integer.parseInt(length);
			}
			catch (NumberFormatException ex) {
				prefix = -1;
			}
			if (prefix < 0 || prefix > bits || length.isEmpty() || !Character.isDigit(length.charAt(0))) {
				throw new IllegalArgumentException("'" + text + "' has an invalid prefix length; an IPv"
						+ ((bits == 32) ? "4" : "6") + " network's is between 0 and " + bits);
			}
		}
		mask(bytes, prefix);
		String canonical = ClientIp.of(Math.min(prefix, 32), Math.min(prefix, 128)).subject(canonicalAddress(bytes));
		return new ListEntry(canonical, bytes, prefix, Set.of(), 0);
	}

	/** The address text of masked bytes, which ClientIp writes canonically. */
	private static String canonicalAddress(byte[] bytes) {
		try {
			return java.net.InetAddress.getByAddress(bytes).getHostAddress();
		}
		catch (java.net.UnknownHostException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/** Digits and dots only, with a dot: an IPv4 address that did not parse, not a subject. */
	private static boolean looksLikeIpv4(String text) {
		boolean dot = false;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '.') {
				dot = true;
			}
			else if (c < '0' || c > '9') {
				return false;
			}
		}
		return dot;
	}

	/**
	 * Returns this entry for the given rules and expiry.
	 * @param rules the rules an allow entry skips, empty for every rule
	 * @param expiresAtMillis when it lapses (epoch milliseconds), 0 for never
	 * @return the entry
	 * @throws IllegalArgumentException when a rule name is not a valid one
	 */
	public ListEntry with(Set<String> rules, long expiresAtMillis) {
		for (String rule : rules) {
			if (!RateLimitPolicy.isValidName(rule)) {
				throw new IllegalArgumentException("'" + rule + "' is not a rule name");
			}
		}
		return new ListEntry(this.text, this.network, this.prefixLength, rules, expiresAtMillis);
	}

	/** Returns whether this entry is a client network rather than a subject. */
	public boolean isNetwork() {
		return this.network != null;
	}

	/** Returns whether this entry is in force at a time (epoch milliseconds). */
	public boolean activeAt(long nowMillis) {
		return this.expiresAtMillis == 0 || nowMillis < this.expiresAtMillis;
	}

	/** Returns whether this entry applies to a rule. */
	public boolean appliesTo(String rule) {
		return this.rules.isEmpty() || this.rules.contains(rule);
	}

	/**
	 * Returns whether this network contains an address.
	 * @param address the address bytes (4 or 16)
	 * @return whether it does; always {@code false} for a subject or another address family
	 */
	public boolean contains(byte[] address) {
		byte[] network = this.network;
		if (network == null || network.length != address.length) {
			return false;
		}
		int full = this.prefixLength / 8;
		for (int i = 0; i < full; i++) {
			if (network[i] != address[i]) {
				return false;
			}
		}
		int rest = this.prefixLength % 8;
		if (rest == 0) {
			return true;
		}
		int mask = (0xFF << (8 - rest)) & 0xFF;
		return (network[full] & mask) == (address[full] & mask);
	}

	private static void mask(byte[] bytes, int prefix) {
		for (int i = 0; i < bytes.length; i++) {
			int kept = Math.min(8, Math.max(0, prefix - i * 8));
			bytes[i] &= (byte) (0xFF << (8 - kept));
		}
	}

	@Override
	public boolean equals(Object other) {
		return other instanceof ListEntry entry && this.text.equals(entry.text) && this.rules.equals(entry.rules)
				&& this.expiresAtMillis == entry.expiresAtMillis;
	}

	@Override
	public int hashCode() {
		return this.text.hashCode() * 31 + Long.hashCode(this.expiresAtMillis);
	}

	@Override
	public String toString() {
		return "ListEntry[" + this.text + ((this.rules.isEmpty()) ? "" : ", rules=" + this.rules)
				+ ((this.expiresAtMillis == 0) ? "" : ", expiresAt=" + this.expiresAtMillis) + "]";
	}

}
