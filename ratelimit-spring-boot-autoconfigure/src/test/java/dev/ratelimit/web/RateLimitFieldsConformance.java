package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import dev.ratelimit.Algorithm;
import dev.ratelimit.test.TestHttp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The conformance suite of the rate limit fields and problem types (draft-ietf-httpapi-ratelimit-headers-10), for
 * any web stack: a subclass starts an application with the rules of {@code ratelimit-conformance-test.yml} (each
 * rule {@code cf-<algorithm>} limits {@code GET /cf/<algorithm>}, keyed by the {@code X-Client} header) and says how
 * to send a request. Every response, allowed or denied, is parsed as Structured Fields and checked against the
 * draft and against the rule:
 * <ul>
 * <li>{@code RateLimit-Policy} lists every rule that applied, with {@code q} its limit and {@code w} its period in
 * seconds; a concurrency rule has {@code qu="concurrent-requests"} and no {@code w};</li>
 * <li>{@code RateLimit} names one of them, {@code r} is never negative and counts down as the rule's quota is used,
 * {@code t} is present exactly when some quota is used (never for concurrency) and then at least 1;</li>
 * <li>the legacy fields say the same ({@code X-RateLimit-Limit} is {@code q}, {@code X-RateLimit-Remaining} is
 * {@code r}), and {@code X-RateLimit-Reset} is the same epoch second on every response about the same state: every
 * denial of a full quota, and every response of one fixed window;</li>
 * <li>a 429 has {@code Retry-After} of at least 1 second and never earlier than {@code t}, and a problem body of type
 * {@code quota-exceeded} whose {@code violated-policies} names the rule that {@code RateLimit} describes.</li>
 * </ul>
 * Clients that back off as the fields tell them are admitted on their first retry, for every rate algorithm (rules
 * {@code retry-<algorithm>}: 3 per 2 s, on {@code /cf/retry/<algorithm>}): one sleeps exactly {@code t} of
 * {@code RateLimit} after a 429, the other exactly {@code Retry-After}, and neither waits longer than
 * {@code Retry-After} plus a second of rounding, from sending the denied request to the admitted answer.
 */
abstract class RateLimitFieldsConformance {

	static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final long LIMIT = 3;

	private static final long HOUR = 3600;

	/**
	 * Sends {@code GET path} with the given headers.
	 * @param path the path
	 * @param headers the request headers
	 * @return the response
	 */
	protected abstract HttpResponse<String> get(String path, Map<String, String> headers);

	@ParameterizedTest
	// the rate algorithms; a concurrency rule's fields are checked below, a distinct rule's (which needs a value per
	// request) in DistinctHttpIntegrationTests
	@EnumSource(value = Algorithm.class, names = { "CONCURRENCY", "DISTINCT" }, mode = EnumSource.Mode.EXCLUDE)
	void fieldsOfAllowedAndDeniedResponsesFollowTheDraft(Algorithm algorithm) throws Exception {
		String rule = "cf-" + algorithm.configName();
		Map<String, String> client = client();
		long startedAt = System.currentTimeMillis();
		List<HttpResponse<String>> responses = new ArrayList<>();
		for (int i = 0; i < LIMIT + 2; i++) {
			responses.add(get("/cf/" + algorithm.configName(), client));
		}
		long endedAt = System.currentTimeMillis();
		for (int i = 0; i < responses.size(); i++) {
			HttpResponse<String> response = responses.get(i);
			boolean admitted = i < LIMIT;
			assertThat(response.statusCode()).as("response %d", i).isEqualTo(admitted ? 200 : 429);
			Fields fields = Fields.of(response);
			fields.assertPolicy(rule, LIMIT, HOUR);
			assertThat(fields.limit().value()).isEqualTo(rule);
			assertThat(fields.remaining()).as("r of response %d", i).isEqualTo(admitted ? LIMIT - 1 - i : 0);
			// the sliding window counter's unit comes back a microsecond into the next window
			assertThat(fields.t()).as("t when some quota is used").isNotNull().isBetween(1L, HOUR + 1);
			if (!admitted) {
				fields.assertDenial(List.of(rule));
			}
		}
		List<String> deniedResets = responses.subList((int) LIMIT, responses.size()).stream()
			.map((response) -> TestHttp.header(response, "X-RateLimit-Reset"))
			.toList();
		assertThat(deniedResets).as("every denial of the same full quota").containsOnly(deniedResets.get(0));
		if (algorithm == Algorithm.FIXED_WINDOW) {
			// the hour's window ends at a multiple of an hour: skip only if one ended while the requests were sent
			assumeThat(Math.floorDiv(startedAt - 1000, HOUR * 1000)).isEqualTo(Math.floorDiv(endedAt + 1000, HOUR * 1000));
			assertThat(responses).extracting((response) -> TestHttp.header(response, "X-RateLimit-Reset"))
				.as("every response of one fixed window")
				.containsOnly(Long.toString(Math.floorDiv(endedAt, HOUR * 1000) * HOUR + HOUR));
		}
	}

	@Test
	void concurrencyRuleHasAQuotaUnitAndNoWindowOrReset() {
		for (int i = 0; i < 3; i++) {
			// a client of its own each time: a lease is released after the client has its response
			HttpResponse<String> response = get("/cf/concurrency", client());
			assertThat(response.statusCode()).isEqualTo(200);
			Fields fields = Fields.of(response);
			StructuredFields.Item policy = fields.policy("cf-concurrency");
			assertThat(policy.parameters()).containsEntry("q", 2L)
				.containsEntry("qu", "concurrent-requests")
				.doesNotContainKey("w");
			assertThat(fields.limit().value()).isEqualTo("cf-concurrency");
			assertThat(fields.remaining()).as("the request itself is in flight").isEqualTo(1);
			assertThat(fields.t()).as("slots come back when requests end, at no known time").isNull();
		}
	}

	@Test
	void aRequestUnderSeveralRulesDescribesTheDenyingOne() throws Exception {
		Map<String, String> client = client();
		for (int i = 0; i < 4; i++) {
			HttpResponse<String> response = get("/cf/multi", client);
			assertThat(response.statusCode()).isEqualTo((i < 2) ? 200 : 429);
			Fields fields = Fields.of(response);
			fields.assertPolicy("cf-multi-hourly", 5, HOUR);
			fields.assertPolicy("cf-multi-burst", 2, HOUR);
			assertThat(fields.limit().value()).as("the fewest remaining").isEqualTo("cf-multi-burst");
			assertThat(fields.remaining()).isEqualTo((i < 2) ? 1 - i : 0);
			if (i >= 2) {
				fields.assertDenial(List.of("cf-multi-burst"));
			}
		}
	}

	@ParameterizedTest
	// the rate algorithms; a concurrency rule's fields are checked below, a distinct rule's (which needs a value per
	// request) in DistinctHttpIntegrationTests
	@EnumSource(value = Algorithm.class, names = { "CONCURRENCY", "DISTINCT" }, mode = EnumSource.Mode.EXCLUDE)
	void clientsSleepingTOrRetryAfterAreAdmittedOnTheirFirstRetry(Algorithm algorithm) throws Exception {
		String path = "/cf/retry/" + algorithm.configName();
		// the two clients have their own quotas and run side by side
		CompletableFuture<BackOff> honouringT = CompletableFuture.supplyAsync(() -> backOff(path, (denied) -> {
			Long t = Fields.of(denied).t();
			assertThat(t).as("t of a 429").isNotNull();
			return t;
		}));
		CompletableFuture<BackOff> honouringRetryAfter = CompletableFuture
			.supplyAsync(() -> backOff(path, (denied) -> Long.parseLong(TestHttp.header(denied, "Retry-After"))));
		for (BackOff backOff : new BackOff[] { honouringT.get(30, TimeUnit.SECONDS),
				honouringRetryAfter.get(30, TimeUnit.SECONDS) }) {
			System.out.println(algorithm.configName() + ": " + backOff);
			assertThat(backOff.t()).as("t is never later than Retry-After").isLessThanOrEqualTo(backOff.retryAfter());
			assertThat(backOff.retryStatus()).as("the first retry after %s s", backOff.slept()).isEqualTo(200);
			// what the client waited is what it slept (the round trips around it are the machine's, not the
			// limiter's: on a loaded CI machine they alone can take hundreds of milliseconds)
			assertThat(backOff.slept()).as("seconds slept before the admitted retry")
				.isLessThanOrEqualTo(backOff.retryAfter());
		}
	}

	/**
	 * Sends requests until one is denied, sleeps as long as {@code wait} reads from the 429, and retries once.
	 */
	private BackOff backOff(String path, ToLongFunction<HttpResponse<String>> wait) {
		Map<String, String> client = Map.of("X-Client", UUID.randomUUID().toString());
		for (int i = 0; i < 10; i++) {
			long sentAt = System.nanoTime();
			HttpResponse<String> response = get(path, client);
			if (response.statusCode() == 429) {
				Long t = Fields.of(response).t();
				long seconds = wait.applyAsLong(response);
				// The sleep is the behaviour under test (a client that waits what the header says), not a wait for a
				// condition of the test: it must be exactly the header's value.
				sleep(seconds);
				int retried = get(path, client).statusCode();
				long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
				return new BackOff((t != null) ? t : 0, Long.parseLong(TestHttp.header(response, "Retry-After")),
						seconds, retried, waited);
			}
			assertThat(response.statusCode()).isEqualTo(200);
		}
		throw new AssertionError("never denied");
	}

	private static void sleep(long seconds) {
		try {
			Thread.sleep(seconds * 1000);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * One client's back-off.
	 * @param t the 429's {@code t}
	 * @param retryAfter its {@code Retry-After}
	 * @param slept the seconds the client slept
	 * @param retryStatus the status of its retry
	 * @param waitedMillis from sending the denied request to the answer of the retry
	 */
	record BackOff(long t, long retryAfter, long slept, int retryStatus, long waitedMillis) {
	}

	private static Map<String, String> client() {
		return Map.of("X-Client", UUID.randomUUID().toString());
	}

	/** The parsed rate limit fields of one response. */
	record Fields(HttpResponse<String> response, List<StructuredFields.Item> policies, StructuredFields.Item limit) {

		static Fields of(HttpResponse<String> response) {
			List<StructuredFields.Item> policies = StructuredFields.parseList(TestHttp.header(response,
					"RateLimit-Policy"));
			List<StructuredFields.Item> limits = StructuredFields.parseList(TestHttp.header(response, "RateLimit"));
			assertThat(limits).as("one service limit").hasSize(1);
			StructuredFields.Item limit = limits.get(0);
			assertThat(policies).extracting(StructuredFields.Item::value).as("the policy of RateLimit")
				.contains(limit.value());
			for (StructuredFields.Item policy : policies) {
				assertThat(policy.integer("q")).as("q of %s", policy.value()).isNotNull().isNotNegative();
				Long w = policy.integer("w");
				assertThat(w == null || w > 0).as("w of %s is a positive integer", policy.value()).isTrue();
			}
			Fields fields = new Fields(response, policies, limit);
			Long t = fields.t();
			assertThat(fields.remaining()).as("r").isNotNegative();
			assertThat(t == null || t >= 1).as("t, when present, is at least 1").isTrue();
			if (fields.remaining() == fields.policy(limit.value()).integer("q")) {
				assertThat(t).as("t when no quota is used").isNull();
			}
			assertThat(TestHttp.header(response, "X-RateLimit-Limit"))
				.isEqualTo(Long.toString(fields.policy(limit.value()).integer("q")));
			assertThat(TestHttp.header(response, "X-RateLimit-Remaining")).isEqualTo(Long.toString(fields.remaining()));
			long reset = Long.parseLong(TestHttp.header(response, "X-RateLimit-Reset"));
			assertThat(reset).as("X-RateLimit-Reset is an epoch second, not before now")
				.isGreaterThanOrEqualTo(System.currentTimeMillis() / 1000 - 1);
			return fields;
		}

		StructuredFields.Item policy(String name) {
			return this.policies.stream()
				.filter((policy) -> policy.value().equals(name))
				.findFirst()
				.orElseThrow(() -> new AssertionError("no policy " + name + " in " + this.policies));
		}

		void assertPolicy(String name, long q, long w) {
			assertThat(policy(name).parameters()).containsEntry("q", q).containsEntry("w", w);
		}

		long remaining() {
			Long r = this.limit.integer("r");
			assertThat(r).as("r is required").isNotNull();
			return r;
		}

		Long t() {
			return this.limit.integer("t");
		}

		/** Checks a 429: Retry-After not earlier than t, and a quota-exceeded problem naming the denying rules. */
		void assertDenial(List<String> violated) throws Exception {
			long retryAfter = Long.parseLong(TestHttp.header(this.response, "Retry-After"));
			assertThat(retryAfter).isPositive();
			Long t = t();
			if (t != null) {
				assertThat(t).as("t is never later than Retry-After").isLessThanOrEqualTo(retryAfter);
			}
			assertThat(TestHttp.header(this.response, "Content-Type")).startsWith("application/problem+json");
			JsonNode body = json.readTree(this.response.body());
			assertThat(body.get("type").asString()).isEqualTo(QUOTA_EXCEEDED);
			assertThat(body.get("status").asInt()).isEqualTo(429);
			assertThat(body.get("title").asString()).isNotBlank();
			assertThat(body.get("detail").asString()).isNotBlank();
			assertThat(body.get("instance").asString()).isNotBlank();
			assertThat(body.get("retryAfter").asLong()).isEqualTo(retryAfter);
			List<String> policies = new ArrayList<>();
			body.get("violated-policies").forEach((name) -> policies.add(name.asString()));
			assertThat(policies).containsExactlyElementsOf(violated).contains(this.limit.value());
		}

	}

}
