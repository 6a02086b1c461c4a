package dev.ratelimit.key;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a key specification such as {@code user+#{request.getHeader('X-Tenant')}} into its parts. Only a {@code +}
 * outside every {@code #{...}} separates parts: a template runs to the {@code }} that balances its {@code #{},
 * skipping nested braces and string literals (as Spring's template parser does), so a {@code +} inside an expression
 * belongs to it.
 */
final class KeySpecification {

	private KeySpecification() {
	}

	/**
	 * Splits a specification on its top-level {@code +}.
	 * @param spec the specification
	 * @return the parts, trimmed
	 * @throws IllegalArgumentException when a part is empty or a template is never closed
	 */
	static List<String> split(String spec) {
		List<String> parts = new ArrayList<>();
		int start = 0;
		int i = 0;
		while (i < spec.length()) {
			if (spec.startsWith("#{", i)) {
				i = endOfTemplate(spec, i);
			}
			else {
				if (spec.charAt(i) == '+') {
					parts.add(part(spec, start, i));
					start = i + 1;
				}
				i++;
			}
		}
		parts.add(part(spec, start, spec.length()));
		return parts;
	}

	private static String part(String spec, int start, int end) {
		String part = spec.substring(start, end).trim();
		if (part.isEmpty()) {
			throw new IllegalArgumentException("the key '" + spec + "' has an empty part; join parts with one '+',"
					+ " e.g. user+endpoint");
		}
		return part;
	}

	/** Returns the index just after the {@code }} that closes the template opened at {@code open}. */
	private static int endOfTemplate(String spec, int open) {
		int depth = 0;
		int i = open + 1;
		while (i < spec.length()) {
			char c = spec.charAt(i);
			if (c == '\'' || c == '"') {
				int end = spec.indexOf(c, i + 1);
				if (end < 0) {
					throw notATemplate(spec, "the string literal at position " + i + " is never closed");
				}
				i = end + 1;
				continue;
			}
			if (c == '{') {
				depth++;
			}
			else if (c == '}' && --depth == 0) {
				return i + 1;
			}
			i++;
		}
		throw notATemplate(spec, "'#{' at position " + open + " is never closed by '}'");
	}

	private static IllegalArgumentException notATemplate(String spec, String reason) {
		return new IllegalArgumentException("'" + spec + "' is not a valid SpEL template: " + reason);
	}

}
