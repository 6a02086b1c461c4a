package dev.ratelimit;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

import org.jspecify.annotations.Nullable;

/**
 * Turns a client's address into the subject of its quota: the network of the address, masked to a prefix length per
 * address family ({@code ratelimit.client-ip.ipv4-prefix-length}, {@code ratelimit.client-ip.ipv6-prefix-length}).
 * Every IPv6 customer holds at least a /64, so a quota per IPv6 address is no limit for them; by default an IPv6
 * client is its /64 and an IPv4 client its own address.
 * <p>
 * The subject is the masked network in a canonical text: an address kept whole is written alone ({@code 203.0.113.7},
 * {@code 2001:db8::7}), a network with its prefix length ({@code 203.0.113.0/24}, {@code 2001:db8:1:2::/64}); IPv6 is
 * written as RFC 5952 says (lower case, no leading zeros, the longest run of zero groups as {@code ::}). An
 * IPv4-mapped IPv6 address ({@code ::ffff:203.0.113.7}) is its IPv4 address; a zone id ({@code fe80::1%eth0}) and
 * brackets are dropped. A value that is not an address literal (a proxy may write {@code unknown}) is its own subject:
 * it is never looked up in DNS.
 */
public final class ClientIp {

	/** IPv4 addresses whole, IPv6 clients by their /64. */
	public static final ClientIp DEFAULT = new ClientIp(32, 64);

	private final int ipv4PrefixLength;

	private final int ipv6PrefixLength;

	private ClientIp(int ipv4PrefixLength, int ipv6PrefixLength) {
		this.ipv4PrefixLength = ipv4PrefixLength;
		this.ipv6PrefixLength = ipv6PrefixLength;
	}

	/**
	 * Creates the subjects of clients masked to the given prefix lengths.
	 * @param ipv4PrefixLength the leading bits of an IPv4 address that name the client, 0 to 32
	 * @param ipv6PrefixLength the leading bits of an IPv6 address that name the client, 0 to 128
	 * @return the client subjects
	 * @throws IllegalArgumentException when a length is out of range
	 */
	public static ClientIp of(int ipv4PrefixLength, int ipv6PrefixLength) {
		if (ipv4PrefixLength < 0 || ipv4PrefixLength > 32) {
			throw new IllegalArgumentException("the IPv4 prefix length must be between 0 and 32 but was "
					+ ipv4PrefixLength);
		}
		if (ipv6PrefixLength < 0 || ipv6PrefixLength > 128) {
			throw new IllegalArgumentException("the IPv6 prefix length must be between 0 and 128 but was "
					+ ipv6PrefixLength);
		}
		return new ClientIp(ipv4PrefixLength, ipv6PrefixLength);
	}

	/** Returns how many leading bits of an IPv4 address name the client. */
	public int ipv4PrefixLength() {
		return this.ipv4PrefixLength;
	}

	/** Returns how many leading bits of an IPv6 address name the client. */
	public int ipv6PrefixLength() {
		return this.ipv6PrefixLength;
	}

	/**
	 * Returns the subject of a client address.
	 * @param address the address as the web server determined it, e.g. {@code 2001:db8:1:2::7}
	 * @return the masked network, e.g. {@code 2001:db8:1:2::/64}, or {@code address} itself when it is not an IP
	 * literal
	 */
	public String subject(String address) {
		byte[] bytes = literal(address);
		if (bytes == null) {
			return address;
		}
		int prefix = (bytes.length == 4) ? this.ipv4PrefixLength : this.ipv6PrefixLength;
		mask(bytes, prefix);
		String network = (bytes.length == 4) ? ipv4Text(bytes) : ipv6Text(bytes);
		return (prefix == bytes.length * 8) ? network : network + '/' + prefix;
	}

	/**
	 * Returns whether a value is an IP address literal (IPv4, IPv6, IPv4-mapped, with or without a zone id or
	 * brackets), which {@link #subject} masks.
	 * @param value the value
	 * @return whether it is an address
	 */
	public static boolean isAddress(String value) {
		return literal(value) != null;
	}

	/**
	 * Returns the bytes of an IP address literal, read as {@link #isAddress} reads it (never looked up in DNS).
	 * @param value the value
	 * @return 4 bytes for IPv4 (also an IPv4-mapped IPv6 address), 16 for IPv6, or {@code null} when it is not an
	 * address literal
	 */
	public static byte @Nullable [] addressBytes(String value) {
		return literal(value);
	}

	/** Returns the bytes of an address literal, 4 for IPv4 (also IPv4-mapped IPv6), 16 for IPv6; else null. */
	private static byte @Nullable [] literal(String address) {
		String text = address.trim();
		if (text.length() > 2 && text.charAt(0) == '[' && text.charAt(text.length() - 1) == ']') {
			text = text.substring(1, text.length() - 1);
		}
		int zone = text.indexOf('%');
		if (zone >= 0) {
			text = text.substring(0, zone);
		}
		boolean ipv6 = text.indexOf(':') >= 0;
		if (text.isEmpty() || text.length() > 45 || !(ipv6 ? isIpv6Text(text) : isDottedQuad(text))) {
			return null;
		}
		try {
			// a literal (it has a ':', or four decimal parts) is parsed, never resolved; an IPv4-mapped IPv6 address
			// comes back as its Inet4Address
			InetAddress parsed = InetAddress.getByName(text);
			return (parsed instanceof Inet4Address || parsed.getAddress().length == 16) ? parsed.getAddress() : null;
		}
		catch (UnknownHostException ex) {
			return null;
		}
	}

	private static boolean isIpv6Text(String text) {
		// starting with a hexadecimal digit or ':', InetAddress parses it as a literal and never asks DNS
		if (!isHex(text.charAt(0)) && text.charAt(0) != ':') {
			return false;
		}
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (!(isHex(c) || c == ':' || c == '.')) {
				return false;
			}
		}
		return true;
	}

	private static boolean isHex(char c) {
		return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
	}

	/** Four decimal parts of 1 to 3 digits, each at most 255: no octal, hexadecimal or short forms. */
	private static boolean isDottedQuad(String text) {
		String[] parts = text.split("\\.", -1);
		if (parts.length != 4) {
			return false;
		}
		for (String part : parts) {
			if (part.isEmpty() || part.length() > 3 || (part.length() > 1 && part.charAt(0) == '0')) {
				return false;
			}
			for (int i = 0; i < part.length(); i++) {
				if (part.charAt(i) < '0' || part.charAt(i) > '9') {
					return false;
				}
			}
			if (Integer.parseInt(part) > 255) {
				return false;
			}
		}
		return true;
	}

	private static void mask(byte[] bytes, int prefix) {
		for (int i = 0; i < bytes.length; i++) {
			int kept = Math.min(8, Math.max(0, prefix - i * 8));
			bytes[i] &= (byte) (0xFF << (8 - kept));
		}
	}

	private static String ipv4Text(byte[] bytes) {
		return (bytes[0] & 0xFF) + "." + (bytes[1] & 0xFF) + "." + (bytes[2] & 0xFF) + "." + (bytes[3] & 0xFF);
	}

	/** RFC 5952: lower case hexadecimal without leading zeros, the first longest run of two or more zero groups as ::. */
	private static String ipv6Text(byte[] bytes) {
		int[] groups = new int[8];
		for (int i = 0; i < 8; i++) {
			groups[i] = ((bytes[2 * i] & 0xFF) << 8) | (bytes[2 * i + 1] & 0xFF);
		}
		int bestStart = -1;
		int bestLength = 1;
		for (int i = 0; i < 8;) {
			if (groups[i] != 0) {
				i++;
				continue;
			}
			int end = i;
			while (end < 8 && groups[end] == 0) {
				end++;
			}
			if (end - i > bestLength) {
				bestStart = i;
				bestLength = end - i;
			}
			i = end;
		}
		StringBuilder text = new StringBuilder(39);
		for (int i = 0; i < 8; i++) {
			if (i == bestStart) {
				text.append("::");
				i += bestLength - 1;
				continue;
			}
			if (text.length() > 0 && text.charAt(text.length() - 1) != ':') {
				text.append(':');
			}
			text.append(Integer.toHexString(groups[i]));
		}
		return text.toString();
	}

	@Override
	public String toString() {
		return "ClientIp[ipv4-prefix-length=" + this.ipv4PrefixLength + ", ipv6-prefix-length="
				+ this.ipv6PrefixLength + "]";
	}

}
