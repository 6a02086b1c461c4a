package dev.ratelimit.web;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example responses of {@code docs/api-clients.md}. Each example sits in the page between
 * {@code <!-- example:<name> -->} and {@code <!-- /example -->}, as a fenced {@code http} block that a test fills
 * with a real response. When the page's example differs from the response (other than the epoch second of
 * {@code X-RateLimit-Reset}, which changes with time), {@link #check} writes the response into the page and fails,
 * so that the change is reviewed and committed.
 */
final class ApiClientsPage {

	private static final Path PAGE = Path.of("..", "docs", "api-clients.md");

	private static final List<String> HEADERS = List.of("RateLimit-Policy", "RateLimit", "Retry-After",
			"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Content-Type");

	private static final Pattern RESET = Pattern.compile("X-RateLimit-Reset: \\d+");

	private String page;

	private final String original;

	ApiClientsPage() throws IOException {
		this.page = Files.readString(PAGE, StandardCharsets.UTF_8);
		this.original = this.page;
	}

	/**
	 * Puts a response in place of an example.
	 * @param name the example's name
	 * @param response the response
	 * @param body whether the example shows the body too
	 */
	void example(String name, HttpResponse<String> response, boolean body) {
		StringBuilder example = new StringBuilder("HTTP/1.1 ").append(response.statusCode()).append('\n');
		for (String header : HEADERS) {
			response.headers().firstValue(header).ifPresent((value) -> example.append(header).append(": ")
				.append(value).append('\n'));
		}
		if (body) {
			example.append('\n').append(response.body()).append('\n');
		}
		String start = "<!-- example:" + name + " -->\n```http\n";
		int from = this.page.indexOf(start);
		assertThat(from).as("the page has the example " + name).isNotNegative();
		int to = this.page.indexOf("```\n<!-- /example -->", from);
		assertThat(to).as("the example " + name + " ends").isPositive();
		this.page = this.page.substring(0, from + start.length()) + example + this.page.substring(to);
	}

	/** Fails, after rewriting the page, when an example put in differs from the page's. */
	void check() throws IOException {
		if (!masked(this.page).equals(masked(this.original))) {
			Files.writeString(PAGE, this.page, StandardCharsets.UTF_8);
			throw new AssertionError(PAGE + " did not show what the starter answers; it has been rewritten with the"
					+ " responses of this run: review and commit it");
		}
	}

	private static String masked(String page) {
		return RESET.matcher(page).replaceAll(Matcher.quoteReplacement("X-RateLimit-Reset: <epoch second>"));
	}

}
