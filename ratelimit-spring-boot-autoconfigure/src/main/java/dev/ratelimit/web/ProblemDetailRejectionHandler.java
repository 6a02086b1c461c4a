package dev.ratelimit.web;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Decision;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * Answers a denied request with an RFC 9457 {@code application/problem+json} body of the problem types that
 * draft-ietf-httpapi-ratelimit-headers-10 registers, each with the extension member {@code violated-policies} (the
 * names of the rules that denied it), a {@code title}, a {@code detail}, the {@code instance} (the request path) and
 * the wait in seconds ({@code retryAfter}, as in the {@code Retry-After} header: the longest wait among the denying
 * rules, rounded up, at least 1):
 * <ul>
 * <li>429 Too Many Requests, {@link #QUOTA_EXCEEDED_TYPE quota-exceeded}, when the client used its quota;</li>
 * <li>503 Service Unavailable, {@link #TEMPORARY_REDUCED_CAPACITY_TYPE temporary-reduced-capacity}, when the server
 * cannot take the request: the store is unavailable and a rule fails closed, an adaptive concurrency limit is full,
 * or every denying rule answers 503 ({@link Verdict#denialStatus()}: a concurrency cap shared by every client, such
 * as {@code key: global}, or {@code status: 503}).</li>
 * </ul>
 * A request whose cost exceeds what a rule can ever admit gets no {@code Retry-After}: no wait would help, and the
 * body's detail says so.
 */
public class ProblemDetailRejectionHandler implements RateLimitRejectionHandler {

	/** The problem type of a request that exceeded its quota (429). */
	public static final URI QUOTA_EXCEEDED_TYPE = URI
		.create("https://iana.org/assignments/http-problem-types#quota-exceeded");

	/** The problem type of a request that the server cannot take right now (503). */
	public static final URI TEMPORARY_REDUCED_CAPACITY_TYPE = URI
		.create("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");

	/** The extension member that names the rules (the draft's "policies") that denied the request. */
	public static final String VIOLATED_POLICIES = "violated-policies";

	private static final String QUOTA_EXCEEDED_TITLE = "Request cannot be satisfied as assigned quota has been exceeded";

	private static final String REDUCED_CAPACITY_TITLE = "Request cannot be satisfied due to temporary server"
			+ " capacity constraints";

	@Override
	public void reject(HttpServletRequest request, HttpServletResponse response, Verdict verdict) throws IOException {
		List<String> rules = verdict.deniedIndexes().stream().map((i) -> verdict.checks().get(i).policy().name()).toList();
		if (verdict.storeUnavailable()) {
			long seconds = retryAfterSeconds(verdict.retryAfter());
			serviceUnavailable(request, response, rules, seconds, "Rate limit " + quoted(rules)
					+ " cannot be checked right now and does not admit requests unchecked.");
			return;
		}
		boolean never = verdict.deniedIndexes().stream().map((i) -> verdict.decisions().get(i)).anyMatch(Decision::neverAllowed);
		boolean overloaded = verdict.denialStatus() == DenialStatus.SERVICE_UNAVAILABLE;
		ProblemDetail problem = ProblemDetail.forStatus(verdict.denialStatus().code());
		problem.setType(overloaded ? TEMPORARY_REDUCED_CAPACITY_TYPE : QUOTA_EXCEEDED_TYPE);
		problem.setTitle(overloaded ? REDUCED_CAPACITY_TITLE : QUOTA_EXCEEDED_TITLE);
		problem.setInstance(URI.create(request.getRequestURI()));
		problem.setProperty(VIOLATED_POLICIES, rules);
		if (never) {
			problem.setDetail("The request costs more than rate limit " + quoted(rules) + " can ever admit.");
		}
		else {
			long seconds = retryAfterSeconds(verdict.retryAfter());
			response.setHeader("Retry-After", Long.toString(seconds));
			problem.setDetail((overloaded ? "The server is at limit " + quoted(rules)
					+ " and does not take more requests right now."
					: "Rate limit " + quoted(rules) + " exceeded.") + " Retry after " + seconds
					+ ((seconds == 1) ? " second." : " seconds."));
			problem.setProperty("retryAfter", seconds);
		}
		write(response, problem);
	}

	@Override
	public void rejectOverloaded(HttpServletRequest request, HttpServletResponse response, AdaptiveDenial denial)
			throws IOException {
		overloaded(request, response, denial);
	}

	/**
	 * Writes the 503 of a request that an adaptive concurrency limit denied.
	 * @param request the request
	 * @param response the response
	 * @param denial the rule that denied it
	 * @throws IOException when the response cannot be written
	 */
	static void overloaded(HttpServletRequest request, HttpServletResponse response, AdaptiveDenial denial)
			throws IOException {
		List<String> rules = List.of(denial.rule());
		String reason = "The server is at its concurrency limit " + quoted(rules) + " (" + denial.limit()
				+ " requests at once) and does not take more right now.";
		long seconds = retryAfterSeconds(AdaptiveDenial.RETRY_AFTER);
		if (denial.status() == DenialStatus.SERVICE_UNAVAILABLE) {
			serviceUnavailable(request, response, rules, seconds, reason);
		}
		else {
			answer(request, response, HttpStatus.TOO_MANY_REQUESTS, QUOTA_EXCEEDED_TYPE, QUOTA_EXCEEDED_TITLE, rules,
					seconds, reason);
		}
	}

	/**
	 * Writes a 503 {@link #TEMPORARY_REDUCED_CAPACITY_TYPE temporary-reduced-capacity} problem with
	 * {@code Retry-After}.
	 * @param request the request
	 * @param response the response
	 * @param rules the rules that denied the request, for {@code violated-policies}
	 * @param seconds the wait, in seconds
	 * @param reason the first sentence of the detail
	 * @throws IOException when the response cannot be written
	 */
	public static void serviceUnavailable(HttpServletRequest request, HttpServletResponse response,
			List<String> rules, long seconds, String reason) throws IOException {
		answer(request, response, HttpStatus.SERVICE_UNAVAILABLE, TEMPORARY_REDUCED_CAPACITY_TYPE,
				REDUCED_CAPACITY_TITLE, rules, seconds, reason);
	}

	private static void answer(HttpServletRequest request, HttpServletResponse response, HttpStatus status, URI type,
			String title, List<String> rules, long seconds, String reason) throws IOException {
		ProblemDetail problem = ProblemDetail.forStatus(status);
		problem.setType(type);
		problem.setTitle(title);
		problem.setInstance(URI.create(request.getRequestURI()));
		problem.setDetail(reason + " Retry after " + seconds + ((seconds == 1) ? " second." : " seconds."));
		problem.setProperty(VIOLATED_POLICIES, rules);
		problem.setProperty("retryAfter", seconds);
		response.setHeader("Retry-After", Long.toString(seconds));
		write(response, problem);
	}

	/** Returns a wait in whole seconds for {@code Retry-After}: rounded up, at least 1. */
	public static long retryAfterSeconds(Duration wait) {
		return Math.max(1, StandardRateLimitHeadersWriter.ceilSeconds(wait));
	}

	/** Writes a problem as {@code application/problem+json}. */
	public static void write(HttpServletResponse response, ProblemDetail problem) throws IOException {
		response.setStatus(problem.getStatus());
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setCharacterEncoding(StandardCharsets.UTF_8.name());
		response.getWriter().write(toJson(problem));
	}

	static String toJson(ProblemDetail problem) {
		StringBuilder json = new StringBuilder("{");
		field(json, "type", problem.getType().toString());
		field(json, "title", problem.getTitle());
		field(json, "status", problem.getStatus());
		field(json, "detail", problem.getDetail());
		field(json, "instance", (problem.getInstance() != null) ? problem.getInstance().toString() : null);
		Map<String, @Nullable Object> properties = problem.getProperties();
		if (properties != null) {
			properties.forEach((name, value) -> field(json, name, value));
		}
		return json.append('}').toString();
	}

	private static void field(StringBuilder json, String name, @Nullable Object value) {
		if (value == null) {
			return;
		}
		json.append((json.length() > 1) ? "," : "");
		string(json, name);
		json.append(':');
		value(json, value);
	}

	private static void value(StringBuilder json, Object value) {
		if (value instanceof Number || value instanceof Boolean) {
			json.append(value);
		}
		else if (value instanceof Iterable<?> items) {
			json.append('[');
			boolean first = true;
			for (Object item : items) {
				json.append(first ? "" : ",");
				value(json, item);
				first = false;
			}
			json.append(']');
		}
		else {
			string(json, value.toString());
		}
	}

	private static void string(StringBuilder json, String value) {
		json.append('"');
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			switch (c) {
				case '"' -> json.append("\\\"");
				case '\\' -> json.append("\\\\");
				case '\n' -> json.append("\\n");
				case '\r' -> json.append("\\r");
				case '\t' -> json.append("\\t");
				default -> {
					if (c < 0x20) {
						json.append(String.format("\\u%04x", (int) c));
					}
					else {
						json.append(c);
					}
				}
			}
		}
		json.append('"');
	}

	private static String quoted(List<String> rules) {
		return String.join(", ", rules.stream().map((rule) -> "'" + rule + "'").toList());
	}

}
