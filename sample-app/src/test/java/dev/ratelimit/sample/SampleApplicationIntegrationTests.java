package dev.ratelimit.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.sample.redis.EmbeddedRedis;
import dev.ratelimit.store.RateLimitStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample over HTTP, against the embedded Redis it starts itself ({@code sample.embedded-redis=always}, so that the
 * embedded path is proven even where a Redis runs on localhost:6379). Redis is flushed and the limiter's memory of
 * denials (the deny cache) cleared before each test, so that no test depends on another's denials.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		// the Redis store's default 100 ms budget is for production; a loaded build machine can exceed it, and these
		// tests are about the sample's rules, not about falling back when Redis is slow
		properties = { "sample.embedded-redis=always", "ratelimit.redis.timeout=5s" })
class SampleApplicationIntegrationTests {

	private static final HttpClient client = HttpClient.newHttpClient();

	private static final JsonMapper json = JsonMapper.builder().build();

	@LocalServerPort
	private int port;

	@Autowired
	private EmbeddedRedis embeddedRedis;

	@Autowired
	private LettuceConnectionFactory connectionFactory;

	@Autowired
	private RateLimitStore store;

	@Autowired
	private RateLimiter limiter;

	@BeforeEach
	void flush() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushAll();
		}
		// requests without a known API key share one subject per client, so a denial could otherwise reach another test
		((ResilientRateLimiter) this.limiter).denyCache().clear();
	}

	@Test
	void limitsAreKeptInTheEmbeddedRedis() throws Exception {
		assertThat(this.embeddedRedis.isRunning()).isTrue();
		assertThat(this.embeddedRedis.port()).isNotEqualTo(6379);
		assertThat(this.connectionFactory.getPort()).isEqualTo(this.embeddedRedis.port());
		assertThat(this.store).isInstanceOf(RedisRateLimitStore.class);
		// the sliding window log keeps its key for the whole minute (a bucket's key expires once it is full again)
		assertThat(login("embedded-check", "guess").statusCode()).isEqualTo(401);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.keyCommands().keys("*login-user*embedded-check*".getBytes(StandardCharsets.UTF_8)))
				.hasSize(1);
		}
	}

	@Test
	void homePageListsTheEndpoints() throws Exception {
		HttpResponse<String> home = get("/", null);
		assertThat(home.statusCode()).isEqualTo(200);
		assertThat(home.body()).contains("/api/hello", "/api/search", "/login", "/api/reports/{user}", "/api/slow",
				"/api/export");
		assertThat(home.headers().firstValue("RateLimit")).isEmpty();
	}

	@Test
	void helloIsLimitedPerIpUntil429WithRetryAfter() throws Exception {
		HttpResponse<String> first = get("/api/hello", null);
		assertThat(first.statusCode()).isEqualTo(200);
		assertThat(first.body()).isEqualTo("hello\n");
		assertThat(header(first, "RateLimit-Policy")).isEqualTo("\"hello\";q=5;w=10");
		assertThat(header(first, "RateLimit")).matches("\"hello\";r=4;t=[12]");
		assertThat(header(first, "X-RateLimit-Limit")).isEqualTo("5");
		assertThat(header(first, "X-RateLimit-Remaining")).isEqualTo("4");
		assertThat(first.headers().firstValue("Retry-After")).isEmpty();

		int allowed = 1;
		HttpResponse<String> denied = null;
		while (denied == null && allowed < 20) {
			HttpResponse<String> response = get("/api/hello", null);
			if (response.statusCode() == 429) {
				denied = response;
			}
			else {
				assertThat(response.statusCode()).isEqualTo(200);
				allowed++;
			}
		}
		// a burst of 5, then one every 2 s: exactly 5 unless the machine took seconds to send them
		assertThat(allowed).isBetween(5, 10);
		assertThat(denied).isNotNull();
		assertThat(header(denied, "Content-Type")).startsWith("application/problem+json");
		long retryAfter = Long.parseLong(header(denied, "Retry-After"));
		assertThat(retryAfter).isBetween(1L, 2L);
		assertThat(header(denied, "RateLimit")).startsWith("\"hello\";r=0;");
		assertThat(header(denied, "X-RateLimit-Remaining")).isEqualTo("0");
		JsonNode problem = json.readTree(denied.body());
		assertThat(problem.get("status").asInt()).isEqualTo(429);
		assertThat(problem.get("instance").asString()).isEqualTo("/api/hello");
		assertThat(problem.get("violated-policies").get(0).asString()).isEqualTo("hello");
		assertThat(problem.get("retryAfter").asLong()).isEqualTo(retryAfter);
	}

	@Test
	void searchLimitDependsOnTheApiKeysPlanAndCostIsThePageSize() throws Exception {
		HttpResponse<String> pro = get("/api/search?q=redis&pageSize=10", "demo-pro-key");
		assertThat(pro.statusCode()).isEqualTo(200);
		assertThat(header(pro, "RateLimit-Policy")).isEqualTo("\"search\";q=1000;w=60");
		assertThat(header(pro, "X-RateLimit-Remaining")).isEqualTo("990");
		JsonNode body = json.readTree(pro.body());
		assertThat(body.get("plan").asString()).isEqualTo("pro");
		assertThat(body.get("results").size()).isEqualTo(10);

		HttpResponse<String> free = get("/api/search?q=redis&pageSize=10", "demo-free-key");
		assertThat(free.statusCode()).isEqualTo(200);
		assertThat(header(free, "RateLimit-Policy")).isEqualTo("\"search\";q=60;w=60");
		assertThat(header(free, "X-RateLimit-Remaining")).isEqualTo("50");
		assertThat(json.readTree(free.body()).get("plan").asString()).isEqualTo("free");

		// no key and an unknown key: the rule's own limit, one budget per IP
		HttpResponse<String> anonymous = get("/api/search?q=redis&pageSize=5", null);
		assertThat(header(anonymous, "RateLimit-Policy")).isEqualTo("\"search\";q=20;w=60");
		assertThat(header(anonymous, "X-RateLimit-Remaining")).isEqualTo("15");
		assertThat(json.readTree(anonymous.body()).get("plan").asString()).isEqualTo("none");
		HttpResponse<String> unknown = get("/api/search?q=redis&pageSize=5", "no-such-key");
		assertThat(header(unknown, "RateLimit-Policy")).isEqualTo("\"search\";q=20;w=60");
		assertThat(header(unknown, "X-RateLimit-Remaining")).isIn("10", "11");

		// no pageSize costs 1
		HttpResponse<String> single = get("/api/search?q=redis", null);
		assertThat(header(single, "X-RateLimit-Remaining")).isIn("9", "10", "11");

		// 60 units need the free bucket full again (about 10 s away): denied, nothing consumed
		HttpResponse<String> tooBig = get("/api/search?q=redis&pageSize=60", "demo-free-key");
		assertThat(tooBig.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(header(tooBig, "Retry-After"))).isBetween(1L, 10L);
		assertThat(json.readTree(tooBig.body()).get("violated-policies").get(0).asString()).isEqualTo("search");
	}

	@Test
	void unknownApiKeysShareTheClientsAnonymousBudget() throws Exception {
		List<Integer> statuses = new ArrayList<>();
		for (int i = 0; i < 25; i++) {
			HttpResponse<String> response = get("/api/search?q=redis", "invented-" + UUID.randomUUID());
			statuses.add(response.statusCode());
			assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"search\";q=20;w=60");
		}
		// the anonymous budget of 20 per minute, not 20 for each invented key: exactly 20 unless the machine took
		// seconds to send them (the bucket gains one unit every 3 s)
		assertThat(statuses.stream().filter((status) -> status == 200).count()).isBetween(20L, 22L);
		assertThat(statuses.subList(0, 20)).containsOnly(200);
		assertThat(statuses.subList(22, 25)).containsOnly(429);
		// a request without a key draws from the same budget
		assertThat(header(get("/api/search?q=redis", null), "X-RateLimit-Remaining")).isEqualTo("0");
	}

	@Test
	void aPageSizeBeyondWhatThePlanCanEverAdmitIsDeniedWithoutRetryAfter() throws Exception {
		HttpResponse<String> never = get("/api/search?q=redis&pageSize=61", "demo-free-key");
		assertThat(never.statusCode()).isEqualTo(429);
		assertThat(never.headers().firstValue("Retry-After")).isEmpty();
		assertThat(json.readTree(never.body()).get("detail").asString()).contains("can ever admit");
		// the pro plan can afford it
		assertThat(get("/api/search?q=redis&pageSize=61", "demo-pro-key").statusCode()).isEqualTo(200);
	}

	@Test
	void loginIsLimitedPerUsernameWhateverTheCase() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> wrong = login("alice", "guess" + i);
			assertThat(wrong.statusCode()).isEqualTo(401);
			assertThat(header(wrong, "RateLimit-Policy"))
				.isEqualTo("\"login-ip\";q=10;w=60, \"login-user\";q=3;w=60");
		}
		HttpResponse<String> denied = login("alice", "guess3");
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(Long.parseLong(header(denied, "Retry-After"))).isBetween(1L, 60L);
		JsonNode problem = json.readTree(denied.body());
		assertThat(problem.get("violated-policies").size()).isEqualTo(1);
		assertThat(problem.get("violated-policies").get(0).asString()).isEqualTo("login-user");
		assertThat(login("ALICE", "guess4").statusCode()).isEqualTo(429);

		// other users from the same address are not affected
		assertThat(login("bob", "guess").statusCode()).isEqualTo(401);
		HttpResponse<String> demo = login("demo", "demo");
		assertThat(demo.statusCode()).isEqualTo(200);
		assertThat(json.readTree(demo.body()).get("user").asString()).isEqualTo("demo");
	}

	/** login-user counts failed logins only (count-when: status 401): successes never use up the user's attempts. */
	@Test
	void successfulLoginsNeverCountAgainstTheUser() throws Exception {
		for (int i = 0; i < 6; i++) {
			assertThat(login("demo", "demo").statusCode()).as("success %d, above the limit of 3", i).isEqualTo(200);
		}
		for (int i = 0; i < 3; i++) {
			assertThat(login("Demo", "guess" + i).statusCode()).isEqualTo(401);
		}
		HttpResponse<String> denied = login("demo", "demo");
		assertThat(denied.statusCode()).as("three failures: even the right password waits").isEqualTo(429);
		assertThat(json.readTree(denied.body()).get("violated-policies").get(0).asString()).isEqualTo("login-user");
	}

	@Test
	void loginIsLimitedPerIpAcrossUsernames() throws Exception {
		for (int i = 0; i < 10; i++) {
			assertThat(login("user" + i, "guess").statusCode()).isEqualTo(401);
		}
		HttpResponse<String> denied = login("user10", "guess");
		assertThat(denied.statusCode()).isEqualTo(429);
		JsonNode problem = json.readTree(denied.body());
		assertThat(problem.get("violated-policies").size()).isEqualTo(1);
		assertThat(problem.get("violated-policies").get(0).asString()).isEqualTo("login-ip");
	}

	@Test
	void reportsAreLimitedPerUserByTheAnnotation() throws Exception {
		for (int i = 0; i < 3; i++) {
			HttpResponse<String> report = get("/api/reports/alice", null);
			assertThat(report.statusCode()).isEqualTo(200);
			assertThat(json.readTree(report.body()).get("user").asString()).isEqualTo("alice");
			assertThat(header(report, "RateLimit-Policy")).isEqualTo("\"reports\";q=3;w=60");
			assertThat(header(report, "X-RateLimit-Remaining")).isEqualTo(Integer.toString(2 - i));
		}
		HttpResponse<String> denied = get("/api/reports/alice", null);
		assertThat(denied.statusCode()).isEqualTo(429);
		assertThat(header(denied, "Content-Type")).startsWith("application/problem+json");
		assertThat(Long.parseLong(header(denied, "Retry-After"))).isBetween(1L, 20L);
		assertThat(json.readTree(denied.body()).get("violated-policies").get(0).asString()).isEqualTo("reports");
		assertThat(get("/api/reports/bob", null).statusCode()).isEqualTo(200);
	}

	@Test
	void summariesDegradeToTheFallbackInsteadOf429() throws Exception {
		for (int i = 0; i < 5; i++) {
			HttpResponse<String> fresh = get("/api/reports/carol/summary", null);
			assertThat(fresh.statusCode()).isEqualTo(200);
			assertThat(json.readTree(fresh.body()).get("fresh").asBoolean()).isTrue();
		}
		HttpResponse<String> degraded = get("/api/reports/carol/summary", null);
		assertThat(degraded.statusCode()).isEqualTo(200);
		assertThat(json.readTree(degraded.body()).get("fresh").asBoolean()).isFalse();
		assertThat(json.readTree(degraded.body()).get("freshInSeconds").asLong()).isBetween(1L, 61L);
		assertThat(json.readTree(get("/api/reports/dave/summary", null).body()).get("fresh").asBoolean()).isTrue();
	}

	@Test
	void catalogStartsColdWithAThirdOfItsQuota() throws Exception {
		HttpResponse<String> first = get("/api/catalog", null);
		assertThat(first.statusCode()).isEqualTo(200);
		// 30 per second from a third when cold; the key warms by one unit about every 1.5 s of use
		assertThat(header(first, "RateLimit-Policy")).matches("\"catalog\";q=1[0-2];w=1");
		assertThat(Long.parseLong(header(first, "X-RateLimit-Remaining")))
			.as("a cold key hands out a third of its burst of 30").isBetween(9L, 11L);
	}

	@Test
	void actuatorListsTheRulesAndTheHealthOfTheStore() throws Exception {
		HttpResponse<String> response = get("/actuator/ratelimits", null);
		assertThat(response.statusCode()).isEqualTo(200);
		JsonNode body = json.readTree(response.body());
		assertThat(body.get("store").asString()).isEqualTo("redis");
		assertThat(body.get("state").asString()).isEqualTo("redis");
		assertThat(body.get("circuit").asString()).isEqualTo("closed");
		List<String> names = new ArrayList<>();
		body.get("rules").forEach((rule) -> names.add(rule.get("name").asString()));
		assertThat(names).contains("hello", "search", "login-ip", "login-user");
		JsonNode search = null;
		for (JsonNode rule : body.get("rules")) {
			if (rule.get("name").asString().equals("search")) {
				search = rule;
			}
		}
		assertThat(search.get("algorithm").asString()).isEqualTo("token-bucket");
		assertThat(search.get("limit").asLong()).isEqualTo(20);
		assertThat(search.get("tiers").get("pro").asLong()).isEqualTo(1000);
		assertThat(search.get("source").asString()).isEqualTo("configuration");

		JsonNode health = json.readTree(get("/actuator/health/ratelimit", null).body());
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("details").get("state").asString()).isEqualTo("redis");
	}

	@Test
	void slowWorkIsUnderAnAdaptiveConcurrencyLimitAndAPerClientRate() throws Exception {
		HttpResponse<String> response = get("/api/slow?ms=5", null);
		assertThat(response.statusCode()).isEqualTo(200);
		assertThat(response.body()).isEqualTo("done in 5 ms\n");
		assertThat(header(response, "RateLimit-Policy")).isEqualTo("\"slow-per-ip\";q=600;w=60");
		JsonNode slow = json.readTree(get("/actuator/ratelimits/slow", null).body());
		assertThat(slow.get("strategy").asString()).isEqualTo("gradient2");
		assertThat(slow.get("limit").asInt()).isBetween(2, 100);
		assertThat(slow.get("maxLimit").asInt()).isEqualTo(100);
		String prometheus = get("/actuator/prometheus", null).body();
		assertThat(prometheus).contains("ratelimit_adaptive_limit{rule=\"slow\"}")
			.contains("ratelimit_concurrency_in_flight{rule=\"slow\"}");
	}

	/** Two exports in progress per client IP: a third waits for nothing and is denied, and is admitted once they end. */
	@Test
	void exportsAreCappedAtTwoInProgressPerClient() throws Exception {
		List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			running.add(client.sendAsync(HttpRequest.newBuilder(uri("/api/export?ms=4000")).GET().build(),
					HttpResponse.BodyHandlers.ofString()));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> exportLeases() == 2);
		HttpResponse<String> third = get("/api/export?ms=0", null);
		assertThat(third.statusCode()).isEqualTo(429);
		assertThat(header(third, "Content-Type")).startsWith("application/problem+json");
		assertThat(exportLeases()).as("a denied request holds no lease").isEqualTo(2);
		for (CompletableFuture<HttpResponse<String>> export : running) {
			assertThat(export.get(30, TimeUnit.SECONDS).body()).isEqualTo("exported in 4000 ms\n");
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> exportLeases() == 0);
		HttpResponse<String> after = get("/api/export?ms=0", null);
		assertThat(after.statusCode()).isEqualTo(200);
		assertThat(after.body()).isEqualTo("exported in 0 ms\n");
	}

	/**
	 * The daily quota per API key resets at midnight UTC, and the customer reads their usage at {@code /api/usage}
	 * without spending any of it.
	 */
	@Test
	void usageShowsTheDailyQuotaOfTheApiKeyWithoutSpendingIt() throws Exception {
		for (int i = 0; i < 3; i++) {
			assertThat(get("/api/convert", "demo-free-key").statusCode()).isEqualTo(200);
		}
		Instant midnightBefore = LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
		JsonNode usage = json.readTree(get("/api/usage", "demo-free-key").body());
		Instant midnightAfter = LocalDate.now(ZoneOffset.UTC).plusDays(1).atStartOfDay(ZoneOffset.UTC).toInstant();
		assertThat(usage.get("quota").asString()).isEqualTo("convert-daily");
		assertThat(usage.get("plan").asString()).isEqualTo("free");
		assertThat(usage.get("limit").asLong()).isEqualTo(50);
		assertThat(usage.get("used").asLong()).isEqualTo(3);
		assertThat(usage.get("remaining").asLong()).isEqualTo(47);
		// the next midnight UTC (either side of one, should the test run across it)
		assertThat(Instant.parse(usage.get("resetsAt").asString())).isIn(midnightBefore, midnightAfter);
		assertThat(json.readTree(get("/api/usage", "demo-free-key").body()).get("used").asLong())
			.as("reading spends nothing").isEqualTo(3);
		HttpResponse<String> convert = get("/api/convert", "demo-free-key");
		assertThat(header(convert, "RateLimit-Policy")).isEqualTo("\"convert-daily\";q=50;w=86400");
		assertThat(get("/api/usage", null).statusCode()).isEqualTo(401);
	}

	/** Returns the slots held under the {@code export} rule, read in Redis (every client: the tests use one IP). */
	private long exportLeases() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			long held = 0;
			for (byte[] key : connection.keyCommands().keys("*{export:*".getBytes(StandardCharsets.UTF_8))) {
				Long slots = connection.zSetCommands().zCard(key);
				held += (slots != null) ? slots : 0;
			}
			return held;
		}
	}

	@Test
	void prometheusHasDecisionsByRuleAndOutcomeButNeverAClientKey() throws Exception {
		String apiKey = "demo-free-key";
		assertThat(get("/api/search?q=redis&pageSize=45", apiKey).statusCode()).isEqualTo(200);
		assertThat(get("/api/search?q=redis&pageSize=45", apiKey).statusCode()).isEqualTo(429);
		assertThat(get("/api/search?q=redis&pageSize=2", "demo-pro-key").statusCode()).isEqualTo(200);
		assertThat(get("/api/search?q=redis", null).statusCode()).isEqualTo(200); // keyed by the IP
		assertThat(login("metrics-user", "guess").statusCode()).isEqualTo(401);

		HttpResponse<String> response = get("/actuator/prometheus", null);
		assertThat(response.statusCode()).isEqualTo(200);
		List<String> lines = response.body().lines().filter((line) -> line.startsWith("ratelimit_")).toList();
		assertThat(lines).anyMatch((line) -> line.startsWith("ratelimit_requests_total{")
				&& line.contains("rule=\"search\"") && line.contains("outcome=\"allowed\""));
		assertThat(lines).anyMatch((line) -> line.startsWith("ratelimit_requests_total{")
				&& line.contains("rule=\"search\"") && line.contains("outcome=\"denied\""));
		assertThat(lines).anyMatch((line) -> line.startsWith("ratelimit_requests_total{")
				&& line.contains("rule=\"login-user\""));
		assertThat(lines).filteredOn((line) -> line.startsWith("ratelimit_requests_total{"))
			.allMatch((line) -> line.contains("rule=\"") && line.contains("outcome=\""));
		assertThat(lines).anyMatch((line) -> line.startsWith("ratelimit_store_state{") && line.contains("state=\"redis\"")
				&& line.endsWith(" 1.0"));
		assertThat(lines).as("store latency is published as a histogram (percentiles-histogram in application.yml)")
			.anyMatch((line) -> line.startsWith("ratelimit_store_latency_seconds_bucket{"));
		// the memory gauges are tagged by Redis node (host:port): on this machine Redis has the client's address too
		List<String> withoutNodes = lines.stream()
			.map((line) -> line.replaceAll("node=\"[^\"]*\"", "node=\"\""))
			.toList();
		for (String clientKey : List.of(apiKey, "demo-pro-key", "127.0.0.1", "metrics-user")) {
			assertThat(withoutNodes).as("no ratelimit_ line names a client")
				.noneMatch((line) -> line.contains(clientKey));
		}

		// who is denied is the endpoint's business, not the metrics'
		JsonNode offenders = json.readTree(get("/actuator/ratelimits/offenders", null).body());
		assertThat(offenders.get("rules").get("search").toString()).contains(apiKey);
	}

	private HttpResponse<String> get(String path, String apiKey) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).GET();
		if (apiKey != null) {
			request.header("X-API-Key", apiKey);
		}
		return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> login(String username, String password) throws Exception {
		String form = "username=" + username + "&password=" + password;
		HttpRequest request = HttpRequest.newBuilder(uri("/login"))
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString(form))
			.build();
		return client.send(request, HttpResponse.BodyHandlers.ofString());
	}

	private URI uri(String path) {
		return URI.create("http://127.0.0.1:" + this.port + path);
	}

	private static String header(HttpResponse<?> response, String name) {
		return response.headers()
			.firstValue(name)
			.orElseThrow(() -> new AssertionError("no " + name + " header in " + response.headers().map()));
	}

}
