package dev.ratelimit.sample.docs;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.test.TestHttp;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs the {@code $ curl ...} lines of a documentation transcript as HTTP requests and compares their output with the
 * one shown. Understands the curl the docs use ({@code -i -s -o /dev/null -w -D - -H -X -d}), a
 * {@code for i in $(seq N); do ...; done} loop, {@code ; echo}, pipes into {@code jq .}, {@code jq -c .},
 * {@code jq -c "{a, b}"}, {@code jq -c .field} and {@code grep [-v] [-iE] pattern}, a trailing {@code # comment} or
 * {@code > /dev/null}, and,
 * when given a Redis, {@code redis-cli [-p port] COMMAND args} (run against that Redis, whatever port is written, and
 * printed as redis-cli prints to a pipe: one line per reply element). What cannot be the same twice is not compared: the
 * {@code Date} header, {@code X-RateLimit-Reset}, ISO durations, timing sums; {@code t=} and {@code Retry-After} may be
 * one second apart (a request may be sent a moment later than in the run shown).
 */
final class CurlTranscript {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final Pattern LOOP = Pattern.compile("for i in \\$\\(seq (\\d+)\\); do (.+); done(.*)");

	private static final Pattern NUMBER = Pattern.compile("-?\\d+(?:\\.\\d+)?(?:E-?\\d+)?");

	private static final Pattern VOLATILE_LINE = Pattern
		.compile("(?i)^(date:|x-ratelimit-reset:).*|.*_seconds_(sum|max|count)\\b.*");

	private static final Pattern DURATION = Pattern.compile("\"PT[\\d.]+S\"");

	/** An instant as the endpoints write it (a reset time): as volatile as a duration. */
	private static final Pattern INSTANT = Pattern.compile("\"\\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z\"");

	private static final Pattern PORT = Pattern.compile("127\\.0\\.0\\.1:\\d+");

	private static final Pattern FREE = Pattern.compile("\"usedMemory\":$");

	private static final Pattern NEAR = Pattern.compile("(t=|Retry-After: |\"retryAfter\":|Retry after )$");

	private static final Pattern SHOWN_PORT = Pattern.compile("^(?:https?://)?localhost:(\\d+)");

	private final TestHttp http;

	private final Map<Integer, TestHttp> others;

	private final @Nullable Function<List<String>, String> redisCli;

	/** @param port the port of the application that {@code localhost:PORT} of the transcript stands for */
	CurlTranscript(int port) {
		this(port, Map.of(), null);
	}

	/**
	 * @param port the port of the application that {@code localhost:PORT} of the transcript stands for, unless
	 * {@code others} names that shown port
	 * @param others shown port to the port of the application it stands for (a second instance)
	 * @param redisCli runs a {@code redis-cli} command's words (after the options) and returns what it prints, or
	 * {@code null} when the transcript has no Redis
	 */
	CurlTranscript(int port, Map<Integer, Integer> others, @Nullable Function<List<String>, String> redisCli) {
		this.http = new TestHttp(port);
		this.others = new LinkedHashMap<>();
		others.forEach((shown, real) -> this.others.put(shown, new TestHttp(real)));
		this.redisCli = redisCli;
	}

	/**
	 * A command of a transcript and the output shown under it.
	 * @param command the command, without {@code $ }
	 * @param expected the output shown
	 * @param line the command's line in the Markdown file
	 */
	record Step(String command, String expected, int line) {
	}

	/**
	 * Returns the steps of a transcript: every line that starts with {@code $ }, and the lines up to the next.
	 * @param block a code block
	 * @return its steps, empty when it has no {@code $ } line
	 */
	static List<Step> steps(Markdown.Block block) {
		List<Step> steps = new ArrayList<>();
		String command = null;
		int commandLine = 0;
		StringBuilder expected = new StringBuilder();
		String[] lines = block.text().split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			if (lines[i].startsWith("$ ")) {
				if (command != null) {
					steps.add(new Step(command, expected.toString(), commandLine));
				}
				command = lines[i].substring(2);
				commandLine = block.line() + 1 + i;
				expected.setLength(0);
			}
			else if (command != null && !(i == lines.length - 1 && lines[i].isEmpty())) {
				expected.append(lines[i]).append('\n');
			}
		}
		if (command != null) {
			steps.add(new Step(command, expected.toString(), commandLine));
		}
		return steps;
	}

	/**
	 * Runs a command.
	 * @param command the command as written in the transcript
	 * @return what it would print
	 */
	String run(String command) {
		command = withoutComment(command);
		Matcher loop = LOOP.matcher(command);
		if (loop.matches()) {
			StringBuilder out = new StringBuilder();
			for (int i = 0; i < Integer.parseInt(loop.group(1)); i++) {
				out.append(run(loop.group(2)));
			}
			return out + tail(loop.group(3));
		}
		if (command.endsWith(" > /dev/null")) {
			run(command.substring(0, command.length() - " > /dev/null".length()));
			return "";
		}
		String[] sequence = command.split(";\\s*(?=echo\\s*$)");
		String[] pipeline = sequence[0].split("\\s+\\|\\s+");
		List<String> first = words(pipeline[0]);
		String out = first.get(0).equals("redis-cli") ? redisCli(first) : curl(first);
		for (int i = 1; i < pipeline.length; i++) {
			out = filter(words(pipeline[i]), out);
		}
		return out + ((sequence.length > 1) ? "\n" : "");
	}

	/** Drops a shell comment: from a {@code #} after a blank, outside quotes, to the end of the line. */
	static String withoutComment(String command) {
		char quote = 0;
		for (int i = 0; i < command.length(); i++) {
			char c = command.charAt(i);
			if (quote != 0) {
				quote = (c == quote) ? 0 : quote;
			}
			else if (c == '\'' || c == '"') {
				quote = c;
			}
			else if (c == '#' && i > 0 && Character.isWhitespace(command.charAt(i - 1))) {
				return command.substring(0, i).stripTrailing();
			}
		}
		return command;
	}

	private String redisCli(List<String> words) {
		if (this.redisCli == null) {
			throw new IllegalArgumentException("This transcript has no Redis for: " + words);
		}
		int i = 1;
		while (i < words.size() && words.get(i).startsWith("-")) {
			i += 2; // -p <port>, -h <host>: the transcript's Redis is the test's
		}
		return this.redisCli.apply(words.subList(i, words.size()));
	}

	private static String tail(String rest) {
		return rest.trim().equals("; echo") ? "\n" : "";
	}

	private String curl(List<String> words) {
		if (!words.get(0).equals("curl")) {
			throw new IllegalArgumentException("Not a curl command: " + words);
		}
		boolean include = false;
		boolean discardBody = false;
		boolean dumpHeaders = false;
		String writeOut = null;
		String method = null;
		String data = null;
		String url = null;
		Map<String, String> headers = new LinkedHashMap<>();
		for (int i = 1; i < words.size(); i++) {
			String word = words.get(i);
			switch (word) {
				case "-i" -> include = true;
				case "-s" -> {
				}
				case "-o" -> discardBody = words.get(++i).equals("/dev/null");
				case "-D" -> dumpHeaders = words.get(++i).equals("-");
				case "-w" -> writeOut = words.get(++i);
				case "-X" -> method = words.get(++i);
				case "-d" -> data = words.get(++i);
				case "-H" -> {
					String[] header = words.get(++i).split(":\\s*", 2);
					headers.put(header[0], header[1]);
				}
				default -> {
					if (word.startsWith("-")) {
						throw new IllegalArgumentException("curl option not understood: " + word);
					}
					url = word;
				}
			}
		}
		Matcher shownPort = SHOWN_PORT.matcher(url);
		TestHttp http = shownPort.find() ? this.others.getOrDefault(Integer.parseInt(shownPort.group(1)), this.http)
				: this.http;
		String path = url.replaceFirst("^(https?://)?localhost:\\d+", "");
		String verb = (method != null) ? method : (data != null) ? "POST" : "GET";
		if (data != null) {
			headers.keySet().removeIf("Content-Type"::equalsIgnoreCase); // TestHttp sends a body as JSON
		}
		HttpResponse<String> response = http.call(verb, path, data, headers);
		StringBuilder out = new StringBuilder();
		if (include || dumpHeaders) {
			out.append("HTTP/1.1 ").append(response.statusCode()).append(" \n");
			response.headers().map().forEach((name, values) -> values
				.forEach((value) -> out.append(capitalized(name)).append(": ").append(value).append('\n')));
			out.append('\n');
		}
		if (!discardBody) {
			out.append(response.body());
		}
		if (writeOut != null) {
			out.append(writeOut.replace("%{http_code}", Integer.toString(response.statusCode())).replace("\\n", "\n"));
		}
		return out.toString();
	}

	private static String capitalized(String name) {
		StringBuilder out = new StringBuilder();
		for (String part : name.split("-")) {
			out.append(out.isEmpty() ? "" : "-");
			out.append(part.equalsIgnoreCase("ratelimit") ? "RateLimit"
					: part.substring(0, 1).toUpperCase(Locale.ROOT) + part.substring(1).toLowerCase(Locale.ROOT));
		}
		return out.toString().replace("X-Ratelimit", "X-RateLimit");
	}

	private static String filter(List<String> words, String in) {
		if (words.get(0).equals("jq")) {
			boolean compact = words.contains("-c");
			String expression = words.get(words.size() - 1);
			JsonNode node = json.readTree(in);
			if (expression.matches("\\.\\w+")) {
				node = node.get(expression.substring(1));
			}
			else if (expression.startsWith("{")) {
				ObjectNode selected = json.createObjectNode();
				for (String field : expression.replaceAll("[{}\\s]", "").split(",")) {
					selected.set(field, node.get(field));
				}
				node = selected;
			}
			return (compact ? json.writeValueAsString(node) : jqPretty(node, "")) + "\n";
		}
		if (words.get(0).equals("grep")) {
			boolean invert = words.contains("-v");
			boolean ignoreCase = words.stream().anyMatch((w) -> w.startsWith("-") && w.contains("i"));
			boolean extended = words.stream().anyMatch((w) -> w.startsWith("-") && w.contains("E"));
			String expression = words.get(words.size() - 1);
			// a basic regular expression (without -E) takes { } + ? | ( ) as themselves
			String regex = extended ? expression : expression.replaceAll("([{}+?|()])", "\\\\$1");
			Pattern pattern = Pattern.compile(regex, ignoreCase ? Pattern.CASE_INSENSITIVE : 0);
			StringBuilder out = new StringBuilder();
			for (String line : in.split("\n")) {
				if (pattern.matcher(line).find() != invert) {
					out.append(line).append('\n');
				}
			}
			return out.toString();
		}
		throw new IllegalArgumentException("Pipe not understood: " + words);
	}

	/**
	 * Writes JSON as {@code jq .} does: two spaces per level, {@code "name": value}, {@code {}} and {@code []} when
	 * empty.
	 */
	private static String jqPretty(JsonNode node, String indent) {
		String inner = indent + "  ";
		if (node.isObject() && !node.isEmpty()) {
			StringBuilder out = new StringBuilder("{\n");
			List<String> names = new ArrayList<>(node.propertyNames());
			for (int i = 0; i < names.size(); i++) {
				out.append(inner).append(json.writeValueAsString(names.get(i))).append(": ")
					.append(jqPretty(node.get(names.get(i)), inner)).append((i < names.size() - 1) ? ",\n" : "\n");
			}
			return out.append(indent).append('}').toString();
		}
		if (node.isArray() && !node.isEmpty()) {
			StringBuilder out = new StringBuilder("[\n");
			for (int i = 0; i < node.size(); i++) {
				out.append(inner).append(jqPretty(node.get(i), inner)).append((i < node.size() - 1) ? ",\n" : "\n");
			}
			return out.append(indent).append(']').toString();
		}
		return json.writeValueAsString(node);
	}

	/**
	 * Splits a command line into words as a shell would for these commands (single and double quotes).
	 * @param line the command line
	 * @return its words
	 */
	static List<String> words(String line) {
		List<String> words = new ArrayList<>();
		StringBuilder word = null;
		char quote = 0;
		for (char c : line.toCharArray()) {
			if (quote != 0) {
				if (c == quote) {
					quote = 0;
				}
				else {
					word.append(c);
				}
			}
			else if (c == '\'' || c == '"') {
				quote = c;
				word = (word != null) ? word : new StringBuilder();
			}
			else if (Character.isWhitespace(c)) {
				if (word != null) {
					words.add(word.toString());
					word = null;
				}
			}
			else {
				word = (word != null) ? word : new StringBuilder();
				word.append(c);
			}
		}
		if (word != null) {
			words.add(word.toString());
		}
		return words;
	}

	/**
	 * Returns what differs between the output shown and the real one, or {@code null} when they agree: the same lines
	 * (a response's headers in any order, and the shown ones only), numbers equal except where they cannot be.
	 * @param expected the output shown in the docs
	 * @param actual the real output
	 * @return the first difference, or {@code null}
	 */
	static String difference(String expected, String actual) {
		List<String> shown = lines(expected);
		List<String> real = lines(actual);
		if (!shown.isEmpty() && shown.get(0).startsWith("HTTP/1.1 ") && real.contains("")) {
			return responseDifference(shown, real);
		}
		String shownJson = (!shown.isEmpty() && (shown.get(0).startsWith("{") || shown.get(0).startsWith("[")))
				? canonicalJson(String.join("\n", shown)) : null;
		if (shownJson != null) {
			// JSON (one line or as jq prints it): the same values, in whatever order the server's maps have
			String realJson = canonicalJson(String.join("\n", real));
			return (realJson != null) ? lineDifference(shownJson, realJson) : mismatch(shownJson, actual);
		}
		if (shown.size() != real.size()) {
			return "shown " + shown.size() + " lines, got " + real.size() + ":\n" + actual;
		}
		for (int i = 0; i < shown.size(); i++) {
			String difference = lineDifference(jsonSorted(shown.get(i)), jsonSorted(real.get(i)));
			if (difference != null) {
				return difference;
			}
		}
		return null;
	}

	private static String responseDifference(List<String> shown, List<String> real) {
		String status = lineDifference(shown.get(0), real.get(0));
		if (status != null) {
			return status;
		}
		int shownBlank = shown.indexOf("");
		int realBlank = real.indexOf("");
		for (String header : shown.subList(1, (shownBlank < 0) ? shown.size() : shownBlank)) {
			String name = header.substring(0, header.indexOf(':') + 1).toLowerCase(Locale.ROOT);
			String match = real.subList(1, realBlank).stream()
				.filter((line) -> line.toLowerCase(Locale.ROOT).startsWith(name))
				.findFirst()
				.orElse(null);
			if (match == null) {
				return "header not sent: " + header + "\n got: " + real;
			}
			String difference = lineDifference(header, match);
			if (difference != null) {
				return difference;
			}
		}
		List<String> shownBody = (shownBlank < 0) ? List.of() : shown.subList(shownBlank + 1, shown.size());
		List<String> realBody = real.subList(realBlank + 1, real.size());
		return difference(String.join("\n", shownBody), String.join("\n", realBody));
	}

	/**
	 * Returns a line that starts with JSON followed by text (curl's {@code -w}, e.g. {@code {...}  (HTTP 400)}) with
	 * that JSON's names sorted, as a response's maps may come in any order; any other line as it is.
	 */
	private static String jsonSorted(String line) {
		if (!line.startsWith("{") && !line.startsWith("[")) {
			return line;
		}
		// from the whole line down to each earlier closing brace or bracket
		for (int end = line.length(); end > 0; end = Math.max(line.lastIndexOf('}', end - 2),
				line.lastIndexOf(']', end - 2)) + 1) {
			String json = canonicalJson(line.substring(0, end));
			if (json != null) {
				return json + line.substring(end);
			}
		}
		return line;
	}

	/** Returns the JSON with its objects' names sorted, or {@code null} when the text is not JSON alone. */
	private static @Nullable String canonicalJson(String text) {
		try {
			return json.writeValueAsString(sorted(json.readTree(text)));
		}
		catch (JacksonException ex) {
			return null;
		}
	}

	private static JsonNode sorted(JsonNode node) {
		if (node.isObject()) {
			ObjectNode sorted = json.createObjectNode();
			node.propertyNames().stream().sorted().forEach((name) -> sorted.set(name, sorted(node.get(name))));
			return sorted;
		}
		if (node.isArray()) {
			ArrayNode sorted = json.createArrayNode();
			node.forEach((item) -> sorted.add(sorted(item)));
			return sorted;
		}
		return node;
	}

	private static List<String> lines(String text) {
		List<String> lines = new ArrayList<>();
		for (String line : text.split("\n", -1)) {
			lines.add(line.stripTrailing());
		}
		while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
			lines.remove(lines.size() - 1);
		}
		return lines;
	}

	static String lineDifference(String shown, String real) {
		if (shown.equals(real)) {
			return null;
		}
		boolean volatileLine = VOLATILE_LINE.matcher(shown).matches();
		String shownText = PORT.matcher(INSTANT.matcher(DURATION.matcher(shown).replaceAll("\"PT0S\""))
			.replaceAll("\"1970-01-01T00:00:00Z\"")).replaceAll("127.0.0.1:PORT");
		String realText = PORT.matcher(INSTANT.matcher(DURATION.matcher(real).replaceAll("\"PT0S\""))
			.replaceAll("\"1970-01-01T00:00:00Z\"")).replaceAll("127.0.0.1:PORT");
		Matcher shownNumbers = NUMBER.matcher(shownText);
		Matcher realNumbers = NUMBER.matcher(realText);
		int shownAt = 0;
		int realAt = 0;
		while (true) {
			boolean more = shownNumbers.find();
			if (more != realNumbers.find()) {
				return mismatch(shown, real);
			}
			String shownBefore = shownText.substring(shownAt, more ? shownNumbers.start() : shownText.length());
			String realBefore = realText.substring(realAt, more ? realNumbers.start() : realText.length());
			if (!shownBefore.equals(realBefore) && !(volatileLine && shownBefore.matches("[ ,:A-Za-z]*"))) {
				return mismatch(shown, real);
			}
			if (!more) {
				return null;
			}
			boolean free = FREE.matcher(shownText.substring(0, shownNumbers.start())).find();
			if (!volatileLine && !free && !shownNumbers.group().equals(realNumbers.group())) {
				boolean near = NEAR.matcher(shownText.substring(0, shownNumbers.start())).find()
						&& Math.abs(Double.parseDouble(shownNumbers.group()) - Double.parseDouble(realNumbers.group())) <= 1;
				if (!near) {
					return mismatch(shown, real);
				}
			}
			shownAt = shownNumbers.end();
			realAt = realNumbers.end();
		}
	}

	private static String mismatch(String shown, String real) {
		return "shown: " + shown + "\n  got: " + real;
	}

}
