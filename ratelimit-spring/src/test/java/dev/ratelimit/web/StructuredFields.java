package dev.ratelimit.web;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A strict parser for the Structured Field lists used by the IETF rate limit headers (RFC 9651 sf-list of items whose
 * bare item is an sf-string, with parameters whose values are sf-integers ({@link Long}), sf-strings
 * ({@link String}) or sf-binary Byte Sequences ({@code byte[]})). Anything else fails the test.
 */
final class StructuredFields {

	/**
	 * @param value the item's string
	 * @param parameters its parameters, in order: {@link Long}, {@link String} or {@code byte[]}
	 */
	record Item(String value, Map<String, Object> parameters) {

		/** Returns an integer parameter, or {@code null} when there is none; fails when it is not an integer. */
		@Nullable Long integer(String key) {
			Object value = this.parameters.get(key);
			if (value != null && !(value instanceof Long)) {
				throw new IllegalArgumentException(key + " is not an integer but " + value);
			}
			return (Long) value;
		}

	}

	private final String input;

	private int position;

	private StructuredFields(String input) {
		this.input = input;
	}

	static List<Item> parseList(String field) {
		StructuredFields parser = new StructuredFields(field);
		List<Item> items = new ArrayList<>();
		parser.skipSpaces();
		while (true) {
			items.add(parser.item());
			parser.skipOptionalWhitespace();
			if (parser.end()) {
				return items;
			}
			parser.expect(',');
			parser.skipOptionalWhitespace();
			if (parser.end()) {
				throw new IllegalArgumentException("trailing comma in " + field);
			}
		}
	}

	private Item item() {
		String value = string();
		Map<String, Object> parameters = new LinkedHashMap<>();
		while (!end() && peek() == ';') {
			this.position++;
			skipSpaces();
			String key = key();
			expect('=');
			if (parameters.put(key, parameterValue()) != null) {
				throw new IllegalArgumentException("parameter " + key + " twice in " + this.input);
			}
		}
		return new Item(value, parameters);
	}

	private Object parameterValue() {
		if (!end() && peek() == '"') {
			return string();
		}
		if (!end() && peek() == ':') {
			return byteSequence();
		}
		return integer();
	}

	private byte[] byteSequence() {
		expect(':');
		int start = this.position;
		while (!end() && peek() != ':') {
			char c = peek();
			if (!(Character.isLetterOrDigit(c) && c < 0x80) && c != '+' && c != '/' && c != '=') {
				throw new IllegalArgumentException("bad base64 character at " + this.position + " in " + this.input);
			}
			this.position++;
		}
		String base64 = this.input.substring(start, this.position);
		expect(':');
		return Base64.getDecoder().decode(base64);
	}

	private String string() {
		expect('"');
		StringBuilder value = new StringBuilder();
		while (true) {
			if (end()) {
				throw new IllegalArgumentException("unterminated string in " + this.input);
			}
			char c = this.input.charAt(this.position++);
			if (c == '\\') {
				char escaped = this.input.charAt(this.position++);
				if (escaped != '"' && escaped != '\\') {
					throw new IllegalArgumentException("bad escape in " + this.input);
				}
				value.append(escaped);
			}
			else if (c == '"') {
				return value.toString();
			}
			else if (c < 0x20 || c > 0x7e) {
				throw new IllegalArgumentException("bad character in string: " + this.input);
			}
			else {
				value.append(c);
			}
		}
	}

	private String key() {
		int start = this.position;
		if (end() || !(Character.isLowerCase(peek()) || peek() == '*')) {
			throw new IllegalArgumentException("bad key at " + start + " in " + this.input);
		}
		while (!end() && (Character.isLowerCase(peek()) || Character.isDigit(peek()) || "_-.*".indexOf(peek()) >= 0)) {
			this.position++;
		}
		return this.input.substring(start, this.position);
	}

	private long integer() {
		int start = this.position;
		if (!end() && peek() == '-') {
			this.position++;
		}
		while (!end() && Character.isDigit(peek())) {
			this.position++;
		}
		String digits = this.input.substring(start, this.position);
		if (digits.isEmpty() || digits.equals("-") || digits.replace("-", "").length() > 15) {
			throw new IllegalArgumentException("bad integer at " + start + " in " + this.input);
		}
		return Long.parseLong(digits);
	}

	private void expect(char c) {
		if (end() || peek() != c) {
			throw new IllegalArgumentException("expected '" + c + "' at " + this.position + " in " + this.input);
		}
		this.position++;
	}

	private void skipSpaces() {
		while (!end() && peek() == ' ') {
			this.position++;
		}
	}

	private void skipOptionalWhitespace() {
		while (!end() && (peek() == ' ' || peek() == '\t')) {
			this.position++;
		}
	}

	private boolean end() {
		return this.position >= this.input.length();
	}

	private char peek() {
		return this.input.charAt(this.position);
	}

}
