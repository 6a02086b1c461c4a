package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import dev.ratelimit.Algorithm;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

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
 * <p>
 * The suite also holds the cases of the servlet stack's HTTP tests, at the HTTP level only, with exact values (rules
 * {@code http-*}): exact headers, the problem+json body member by member, {@code Retry-After} rounding, unmatched
 * requests, composite keys ({@code header+endpoint}), tiers, a SpEL cost, a request no wait would help, shadow rules
 * and all or nothing. Each stack's subclass (servlet, WebFlux, a gateway route) runs every case unchanged: the stacks
 * answer identically. Subclasses start the application of {@link ConformanceTestApplication} on a random port (or
 * override {@link #get}) against the shared test Redis.
 */
@RedisStandaloneTest
public abstract class RateLimitFieldsConformance {

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		RedisEndpoint redis = RedisStandaloneExtension.shared();
		registry.add("spring.data.redis.url", redis::uri);
	}


	static final String QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final long LIMIT = 3;

	private static final long HOUR = 3600;

	@LocalServerPort
	private int port;

	/**
	 * Sends {@code GET path} with the given headers, by default to the application on its random port.
	 * @param path the path
	 * @param headers the request headers
	 * @return the response
	 */
	protected HttpResponse<String> get(String path, Map<String, String> headers) {
		// a request that hangs fails as such, naming itself, instead of stalling the case
		return new TestHttp(this.port).get(path, headers, Duration.ofSeconds(20));
	}

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

	/** The rule {@code orders} (3 per minute, GCRA): its first response, and the 429 after three requests. */
	@Test
	void examplesOfTheClientsPageAreTheResponsesOfTheStarter() throws Exception {
		Map<String, String> client = Map.of("X-Client", UUID.randomUUID().toString());
		HttpResponse<String> allowed = get("/api/orders", client);
		get("/api/orders", client);
		get("/api/orders", client);
		HttpResponse<String> denied = get("/api/orders", client);
		assertThat(allowed.statusCode()).isEqualTo(200);
		assertThat(denied.statusCode()).isEqualTo(429);
		ApiClientsPage page = new ApiClientsPage();
		page.example("allowed", allowed, false);
		page.example("denied", denied, true);
		page.check();
	}

	// The cases of the servlet stack's HTTP tests (RateLimitHttpIntegrationTests), over HTTP only, with a client,
	// tenant or API key of each test's own (rules http-*).

	@Test
	void allowedResponsesCarryExactIetfAndLegacyHeaders() {
		Map<String, String> client = client();
		long before = System.currentTimeMillis() / 1000;
		HttpResponse<String> first = get("/cf/http/hello", client);
		long after = System.currentTimeMillis() / 1000;
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(StructuredFields.parseList(TestHttp.header(first, "RateLimit-Policy")))
			.containsExactly(new StructuredFields.Item("http-hello", Map.<String, Object>of("q", 3L, "w", 60L)));
		List<StructuredFields.Item> limit = StructuredFields.parseList(TestHttp.header(first, "RateLimit"));
		assertThat(limit).hasSize(1);
		assertThat(limit.get(0).value()).isEqualTo("http-hello");
		assertThat(limit.get(0).parameters()).containsEntry("r", 2L).containsEntry("t", 20L);
		assertThat(TestHttp.header(first, "X-RateLimit-Limit")).isEqualTo("3");
		assertThat(TestHttp.header(first, "X-RateLimit-Remaining")).isEqualTo("2");
		// t (20 s) after the request was decided, some time between before and after
		assertThat(Long.parseLong(TestHttp.header(first, "X-RateLimit-Reset"))).isBetween(before + 20, after + 22);
		assertThat(first.headers().firstValue("Retry-After")).isEmpty();
		assertThat(StructuredFields.parseList(TestHttp.header(get("/cf/http/hello", client), "RateLimit")).get(0)
			.parameters()).containsEntry("r", 1L);
	}

	@Test
	void deniedRequestGetsProblemJsonWithRetryAfter() throws Exception {
		Map<String, String> client = client();
		long start = System.nanoTime();
		for (int i = 0; i < 3; i++) {
			assertThat(get("/cf/http/hello", client).statusCode()).isEqualTo(200);
		}
		HttpResponse<String> denied = get("/cf/http/hello", client);
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(TestHttp.header(denied, "Content-Type")).isEqualTo("application/problem+json;charset=UTF-8");
		// GCRA 3 per minute: the fourth request, d <= elapsed seconds after the first, may come 20 - d seconds later,
		// rounded up: 20 whenever d < 1 (a loaded machine may take longer to send the four)
		long retryAfter = Long.parseLong(TestHttp.header(denied, "Retry-After"));
		assertThat(retryAfter).isBetween(Math.max(1, (long) Math.ceil(20 - elapsed)), 20L);
		if (elapsed < 1) {
			assertThat(retryAfter).isEqualTo(20);
		}
		assertThat(StructuredFields.parseList(TestHttp.header(denied, "RateLimit")).get(0).parameters())
			.containsEntry("r", 0L);
		assertThat(TestHttp.header(denied, "X-RateLimit-Remaining")).isEqualTo("0");
		JsonNode body = json.readTree(denied.body());
		assertThat(body.get("type").asString()).isEqualTo(QUOTA_EXCEEDED);
		assertThat(body.get("title").asString()).isEqualTo("Request cannot be satisfied as assigned quota has been exceeded");
		assertThat(body.get("status").asInt()).isEqualTo(429);
		assertThat(body.get("instance").asString()).isEqualTo("/cf/http/hello");
		assertThat(body.get("detail").asString())
			.isEqualTo("Rate limit 'http-hello' exceeded. Retry after " + retryAfter + " seconds.");
		assertThat(body.get("violated-policies").get(0).asString()).isEqualTo("http-hello");
		assertThat(body.get("retryAfter").asLong()).isEqualTo(retryAfter);
		assertThat(body.properties()).extracting(Map.Entry::getKey)
			.containsExactly("type", "title", "status", "detail", "instance", "violated-policies", "retryAfter");
	}

	@Test
	void retryAfterIsRoundedUp() {
		Map<String, String> client = client();
		long start = System.nanoTime();
		assertThat(get("/cf/http/retry", client).statusCode()).isEqualTo(200);
		assertThat(get("/cf/http/retry", client).statusCode()).isEqualTo(200);
		HttpResponse<String> denied = get("/cf/http/retry", client);
		double elapsed = (System.nanoTime() - start) / 1e9;
		assertThat(denied.statusCode()).isEqualTo(429);
		// GCRA 2 per 30 s: the third request, d <= elapsed seconds after the first, may come 15 - d seconds later,
		// which rounds up to ceil(15 - d): 15 whenever d < 1 (rounding down would give 14)
		long retryAfter = Long.parseLong(TestHttp.header(denied, "Retry-After"));
		assertThat(retryAfter).isBetween(Math.max(1, (long) Math.ceil(15 - elapsed)), 15L);
		if (elapsed < 1) {
			assertThat(retryAfter).isEqualTo(15);
		}
	}

	@Test
	void unmatchedRequestsAreNotLimitedAndCarryNoHeaders() {
		HttpResponse<String> response = get("/cf/http/open", client());
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.headers().firstValue("RateLimit-Policy")).isEmpty();
		assertThat(response.headers().firstValue("X-RateLimit-Limit")).isEmpty();
	}

	@Test
	void compositeKeysSeparateTenantsAndEndpoints() {
		Map<String, String> tenant = Map.of("X-Tenant", "acme-" + UUID.randomUUID());
		for (int i = 0; i < 2; i++) {
			assertThat(get("/cf/http/composite/a", tenant).statusCode()).isEqualTo(200);
		}
		assertThat(get("/cf/http/composite/a", tenant).statusCode()).isEqualTo(429);
		assertThat(get("/cf/http/composite/b", tenant).statusCode()).as("other endpoint").isEqualTo(200);
		assertThat(get("/cf/http/composite/a", Map.of("X-Tenant", "globex-" + UUID.randomUUID())).statusCode())
			.as("other tenant").isEqualTo(200);
	}

	@Test
	void tiersGiveEachPlanItsLimitAndUnknownPlansTheRuleLimit() {
		String key = "key-" + UUID.randomUUID();
		HttpResponse<String> pro = get("/cf/http/search", Map.of("X-API-Key", key, "X-Plan", "pro"));
		assertThat(StructuredFields.parseList(TestHttp.header(pro, "RateLimit-Policy")).get(0).parameters())
			.containsEntry("q", 100L);
		assertThat(TestHttp.header(pro, "X-RateLimit-Remaining")).isEqualTo("99");
		HttpResponse<String> unknown = get("/cf/http/search", Map.of("X-API-Key", "other-" + key, "X-Plan", "platinum"));
		assertThat(TestHttp.header(unknown, "X-RateLimit-Limit")).isEqualTo("10");
		HttpResponse<String> missing = get("/cf/http/search", Map.of("X-API-Key", "third-" + key));
		assertThat(TestHttp.header(missing, "X-RateLimit-Limit")).isEqualTo("10");
	}

	@Test
	void costComesFromTheRequestAndNeverBelowOne() {
		Map<String, String> key = Map.of("X-API-Key", "cost-" + UUID.randomUUID());
		assertThat(TestHttp.header(get("/cf/http/search?pageSize=4", key), "X-RateLimit-Remaining")).isEqualTo("6");
		assertThat(TestHttp.header(get("/cf/http/search?pageSize=abc", key), "X-RateLimit-Remaining")).isEqualTo("5");
		assertThat(TestHttp.header(get("/cf/http/search?pageSize=-7", key), "X-RateLimit-Remaining")).isEqualTo("4");
		HttpResponse<String> tooBig = get("/cf/http/search?pageSize=5", key);
		assertThat(tooBig.statusCode()).isEqualTo(429);
		assertThat(TestHttp.header(tooBig, "X-RateLimit-Remaining")).isEqualTo("4");
		HttpResponse<String> never = get("/cf/http/search?pageSize=99999999999999999999", key);
		assertThat(never.statusCode()).isEqualTo(429);
		assertThat(TestHttp.header(get("/cf/http/search?pageSize=4", key), "X-RateLimit-Remaining")).isEqualTo("0");
	}

	@Test
	void requestCostingMoreThanTheLimitCanEverAdmitSaysSo() throws Exception {
		HttpResponse<String> never = get("/cf/http/search?pageSize=11", Map.of("X-API-Key", "never-" + UUID.randomUUID()));
		assertThat(never.statusCode()).isEqualTo(429);
		assertThat(never.headers().firstValue("Retry-After")).isEmpty();
		JsonNode body = json.readTree(never.body());
		assertThat(body.get("detail").asString()).isEqualTo("The request costs more than rate limit 'http-search' can ever admit.");
		assertThat(body.has("retryAfter")).isFalse();
	}

	@Test
	void shadowRuleNeverBlocksAndSendsNoHeaders() {
		Map<String, String> client = client();
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> response = get("/cf/http/shadow", client);
			assertThat(response.statusCode()).isEqualTo(200);
			assertThat(StructuredFields.parseList(TestHttp.header(response, "RateLimit-Policy")))
				.extracting(StructuredFields.Item::value)
				.containsExactly("http-shadow-enforced");
		}
		assertThat(get("/cf/http/shadow", client).statusCode()).as("the enforced rule still applies").isEqualTo(429);
	}

	@Test
	void aDeniedRequestConsumesNothingOfTheRulesThatAdmittedIt() {
		Map<String, String> client = client();
		assertThat(TestHttp.header(get("/cf/http/all/narrow", client), "RateLimit")).startsWith("\"http-all-narrow\";r=0");
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> denied = get("/cf/http/all/narrow", client);
			assertThat(denied.statusCode()).isEqualTo(429);
		}
		HttpResponse<String> wide = get("/cf/http/all/other", client);
		assertThat(wide.statusCode()).isEqualTo(200);
		assertThat(TestHttp.header(wide, "X-RateLimit-Remaining")).as("only the two admitted requests counted")
			.isEqualTo("3");
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
