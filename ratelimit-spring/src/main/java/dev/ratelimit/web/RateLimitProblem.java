package dev.ratelimit.web;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import dev.ratelimit.Decision;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import dev.ratelimit.lists.ListDenial;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;

/**
 * The answer to a denied request, whatever the web stack: an RFC 9457 {@code application/problem+json} body of the
 * problem types that draft-ietf-httpapi-ratelimit-headers-10 registers, each with the extension member
 * {@code violated-policies} (the names of the rules that denied it), a {@code title}, a {@code detail}, the
 * {@code instance} (the request path) and the wait in seconds ({@code retryAfter}, as in the {@code Retry-After}
 * header: the longest wait among the denying rules, rounded up, at least 1):
 * <ul>
 * <li>429 Too Many Requests, {@link #QUOTA_EXCEEDED_TYPE quota-exceeded}, when the client used its quota;</li>
 * <li>503 Service Unavailable, {@link #TEMPORARY_REDUCED_CAPACITY_TYPE temporary-reduced-capacity}, when the server
 * cannot take the request: the store is unavailable and a rule fails closed, an adaptive concurrency limit is full,
 * or every denying rule answers 503 ({@link Verdict#denialStatus()}: a concurrency cap shared by every client, such
 * as {@code key: global}, or {@code status: 503}).</li>
 * </ul>
 * A request whose cost exceeds what a rule can ever admit gets no {@code Retry-After}: no wait would help, and the
 * body's detail says so. A stack's rejection handler sends {@link #status()}, {@link #headers()} and {@link #json()}.
 */
public final class RateLimitProblem {

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

	private final ProblemDetail problem;

	private final @Nullable Long retryAfter;

	private RateLimitProblem(ProblemDetail problem, @Nullable Long retryAfter) {
		this.problem = problem;
		this.retryAfter = retryAfter;
	}

	/**
	 * Returns the answer to a request that a verdict denied.
	 * @param verdict the denying verdict
	 * @param path the request path, for {@code instance}
	 * @return the answer
	 */
	public static RateLimitProblem of(Verdict verdict, String path) {
		List<String> rules = verdict.deniedIndexes().stream().map((i) -> verdict.checks().get(i).policy().name()).toList();
		if (verdict.storeUnavailable()) {
			return serviceUnavailable(path, rules, retryAfterSeconds(verdict.retryAfter()), "Rate limit "
					+ quoted(rules) + " cannot be checked right now and does not admit requests unchecked.");
		}
		boolean never = verdict.deniedIndexes().stream().map((i) -> verdict.decisions().get(i)).anyMatch(Decision::neverAllowed);
		boolean overloaded = verdict.denialStatus() == DenialStatus.SERVICE_UNAVAILABLE;
		ProblemDetail problem = ProblemDetail.forStatus(verdict.denialStatus().code());
		problem.setType(overloaded ? TEMPORARY_REDUCED_CAPACITY_TYPE : QUOTA_EXCEEDED_TYPE);
		problem.setTitle(overloaded ? REDUCED_CAPACITY_TITLE : QUOTA_EXCEEDED_TITLE);
		problem.setInstance(URI.create(path));
		problem.setProperty(VIOLATED_POLICIES, rules);
		if (never) {
			problem.setDetail("The request costs more than rate limit " + quoted(rules) + " can ever admit.");
			return new RateLimitProblem(problem, null);
		}
		long seconds = retryAfterSeconds(verdict.retryAfter());
		problem.setDetail((overloaded
				? "The server is at limit " + quoted(rules) + " and does not take more requests right now."
				: "Rate limit " + quoted(rules) + " exceeded.") + retryAfterSentence(seconds));
		problem.setProperty("retryAfter", seconds);
		return new RateLimitProblem(problem, seconds);
	}

	/**
	 * Returns the answer to a request that an adaptive concurrency limit denied: 503 (or the rule's {@code status})
	 * with {@code Retry-After}.
	 * @param denial the rule that denied it
	 * @param path the request path, for {@code instance}
	 * @return the answer
	 */
	public static RateLimitProblem overloaded(AdaptiveDenial denial, String path) {
		List<String> rules = List.of(denial.rule());
		String reason = "The server is at its concurrency limit " + quoted(rules) + " (" + denial.limit()
				+ " requests at once) and does not take more right now.";
		long seconds = retryAfterSeconds(AdaptiveDenial.RETRY_AFTER);
		if (denial.status() == DenialStatus.SERVICE_UNAVAILABLE) {
			return serviceUnavailable(path, rules, seconds, reason);
		}
		return answer(path, HttpStatus.TOO_MANY_REQUESTS, QUOTA_EXCEEDED_TYPE, QUOTA_EXCEEDED_TITLE, rules, seconds,
				reason);
	}

	/**
	 * Returns the answer to a request that the deny list refused: {@code ratelimit.lists.deny-status} (403 Forbidden
	 * by default) of type {@code about:blank}, with the rule whose subject was listed in {@code violated-policies} and
	 * no {@code Retry-After} (waiting does not help; the entry may lapse, which the client is not told).
	 * @param denial the denial
	 * @param path the request path, for {@code instance}
	 * @return the answer
	 */
	public static RateLimitProblem listed(ListDenial denial, String path) {
		ProblemDetail problem = ProblemDetail.forStatus(denial.status());
		problem.setType(URI.create("about:blank"));
		problem.setInstance(URI.create(path));
		problem.setDetail("Requests of this client are refused.");
		problem.setProperty(VIOLATED_POLICIES, List.of(denial.rule()));
		return new RateLimitProblem(problem, null);
	}

	/**
	 * Returns a 503 {@link #TEMPORARY_REDUCED_CAPACITY_TYPE temporary-reduced-capacity} answer with
	 * {@code Retry-After}.
	 * @param path the request path, for {@code instance}
	 * @param rules the rules that denied the request, for {@code violated-policies}
	 * @param seconds the wait, in seconds
	 * @param reason the first sentence of the detail
	 * @return the answer
	 */
	public static RateLimitProblem serviceUnavailable(String path, List<String> rules, long seconds, String reason) {
		return answer(path, HttpStatus.SERVICE_UNAVAILABLE, TEMPORARY_REDUCED_CAPACITY_TYPE, REDUCED_CAPACITY_TITLE,
				rules, seconds, reason);
	}

	private static RateLimitProblem answer(String path, HttpStatus status, URI type, String title, List<String> rules,
			long seconds, String reason) {
		ProblemDetail problem = ProblemDetail.forStatus(status);
		problem.setType(type);
		problem.setTitle(title);
		problem.setInstance(URI.create(path));
		problem.setDetail(reason + retryAfterSentence(seconds));
		problem.setProperty(VIOLATED_POLICIES, rules);
		problem.setProperty("retryAfter", seconds);
		return new RateLimitProblem(problem, seconds);
	}

	/**
	 * Returns the status code to answer with.
	 * @return 429 or 503
	 */
	public int status() {
		return this.problem.getStatus();
	}

	/**
	 * Returns the problem.
	 * @return the problem, with the {@code violated-policies} and {@code retryAfter} members
	 */
	public ProblemDetail problem() {
		return this.problem;
	}

	/**
	 * Returns the wait to send as {@code Retry-After}.
	 * @return the seconds, or {@code null} when no wait would help
	 */
	public @Nullable Long retryAfter() {
		return this.retryAfter;
	}

	/**
	 * Returns the headers of the answer besides the rate limit headers: {@code Retry-After} (unless no wait would
	 * help) and {@code Content-Type: application/problem+json;charset=UTF-8}.
	 * @return the headers
	 */
	public HttpHeaders headers() {
		HttpHeaders headers = new HttpHeaders();
		if (this.retryAfter != null) {
			headers.set(HttpHeaders.RETRY_AFTER, Long.toString(this.retryAfter));
		}
		headers.setContentType(new MediaType(MediaType.APPLICATION_PROBLEM_JSON, StandardCharsets.UTF_8));
		return headers;
	}

	/**
	 * Returns the body, as JSON (UTF-8 when encoded).
	 * @return the problem as {@code application/problem+json}
	 */
	public String json() {
		return toJson(this.problem);
	}

	/**
	 * Returns a wait in whole seconds for {@code Retry-After}: rounded up, at least 1.
	 * @param wait the wait
	 * @return the seconds
	 */
	public static long retryAfterSeconds(Duration wait) {
		return Math.max(1, RateLimitHeaders.ceilSeconds(wait));
	}

	private static String retryAfterSentence(long seconds) {
		return " Retry after " + seconds + ((seconds == 1) ? " second." : " seconds.");
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
