package dev.ratelimit.actuate;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import dev.ratelimit.lists.ListKind;
import dev.ratelimit.lists.RateLimitLists;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.HttpTestApplication;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Allow and deny lists over HTTP with two instances sharing a Redis of their own (so that {@code INFO commandstats}
 * counts their commands only). Clients are told apart by {@code X-Forwarded-For}, which these instances believe
 * because they are configured to ({@code server.forward-headers-strategy=framework}): the lists match the client IP as
 * the starter resolves it. The periodic version check is an hour apart, so only the change's message can carry it to
 * the other instance within the test's bounds.
 */
class RateLimitListsIntegrationTests {

	private static final Log logger = LogFactory.getLog(RateLimitListsIntegrationTests.class);

	private static final JsonMapper json = JsonMapper.builder().build();

	/** The commands that gcra.lua runs inside each call (ratelimit-redis), which INFO commandstats counts too. */
	private static final java.util.Set<String> GCRA_SCRIPT_COMMANDS = java.util.Set.of("time", "mget");

	private static RedisServerProcess redis;

	private static ConfigurableApplicationContext a;

	private static ConfigurableApplicationContext b;

	private static TestHttp httpA;

	private static TestHttp httpB;

	@BeforeAll
	static void start() {
		redis = RedisServerProcess.start();
		a = instance();
		b = instance();
		httpA = new TestHttp(port(a));
		httpB = new TestHttp(port(b));
	}

	@AfterAll
	static void stop() {
		b.close();
		a.close();
		redis.close();
	}

	@AfterEach
	void clean() {
		try (RedisConnection connection = a.getBean(RedisConnectionFactory.class).getConnection()) {
			connection.serverCommands().flushAll();
		}
		for (ConfigurableApplicationContext instance : new ConfigurableApplicationContext[] { a, b }) {
			instance.getBean(RateLimitLists.class).replaceRuntime(Map.of());
		}
	}

	private static ConfigurableApplicationContext instance() {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0", "spring.data.redis.url=" + redis.uri(),
					"management.endpoints.web.exposure.include=*", "server.forward-headers-strategy=framework",
					"ratelimit.lists.refresh-interval=1h", "ratelimit.overrides.refresh-interval=1h",
					"ratelimit.redis.memory-check-interval=1h", "ratelimit.lists.max-entries=4",
					"ratelimit.lists.deny[0]=key-banned", "ratelimit.lists.allow[0]=192.0.2.1")
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
	}

	/**
	 * The "must show": a network denied for 5 s through instance A's actuator is refused on A and on B at
	 * once (B learns it from the change's message), costs no Redis call per refused request while admitted ones cost
	 * one each, and is admitted again on both once the 5 s have passed, with no call made to lift it.
	 */
	@Test
	void aNetworkDeniedForFiveSecondsThroughOneInstanceIsRefusedOnBothAtOnceAndAdmittedAgainAfterwardsWithoutACall()
			throws Exception {
		assertThat(hello(httpA, "203.0.113.7").statusCode()).isEqualTo(200);
		assertThat(hello(httpB, "203.0.113.8").statusCode()).isEqualTo(200);
		long denied = System.nanoTime();
		HttpResponse<String> added = httpA.call("POST", "/actuator/ratelimits/lists/deny",
				"{\"entry\": \"203.0.113.0/24\", \"ttl\": \"5s\"}", Map.of());
		assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
		JsonNode entry = json.readTree(added.body()).get("deny").get(1);
		assertThat(entry.get("entry").asString()).isEqualTo("203.0.113.0/24");
		assertThat(entry.get("source").asString()).isEqualTo("runtime");
		assertThat(hello(httpA, "203.0.113.9").statusCode()).as("refused on A at once").isEqualTo(403);
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
			.until(() -> hello(httpB, "203.0.113.10").statusCode() == 403);
		long propagated = System.nanoTime() - denied;
		logger.info("B refused the network " + Duration.ofNanos(propagated).toMillis() + " ms after the POST to A was sent");
		HttpResponse<String> refused = hello(httpB, "203.0.113.11");
		assertThat(refused.statusCode()).isEqualTo(403);
		assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
				(type) -> assertThat(type).startsWith("application/problem+json"));
		JsonNode problem = json.readTree(refused.body());
		assertThat(problem.get("status").asInt()).isEqualTo(403);
		assertThat(problem.get("title").asString()).isEqualTo("Forbidden");
		assertThat(problem.get("instance").asString()).isEqualTo("/hello");
		assertThat(problem.get("violated-policies").get(0).asString()).isEqualTo("hello");
		assertThat(refused.headers().firstValue("Retry-After")).isEmpty();

		// one Redis call per admitted request (the rule's script), none per refused one, on either instance
		Map<String, Long> before = commandStats();
		int admittedRequests = 0;
		for (int i = 0; i < 10; i++) {
			assertThat(hello((i % 2 == 0) ? httpA : httpB, "203.0.113." + (20 + i)).statusCode()).isEqualTo(403);
			assertThat(hello((i % 2 == 0) ? httpB : httpA, "198.51.100." + (20 + i)).statusCode()).isEqualTo(200);
			admittedRequests++;
		}
		Map<String, Long> after = commandStats();
		long scriptCalls = delta(before, after, "evalsha") + delta(before, after, "eval");
		logger.info("INFO commandstats over 10 refused and " + admittedRequests + " admitted requests: " + before + " -> "
				+ after);
		assertThat(scriptCalls).as("script calls in %s -> %s", before, after).isEqualTo(admittedRequests);
		// INFO commandstats also counts the commands a script runs: rule hello's gcra.lua runs TIME and MGET once per
		// call and writes the TAT once (SET, or INCRBY in place within its second: decision 136), and nothing else
		// moved (no list read, no other command sent by either instance)
		for (String command : after.keySet()) {
			if (!command.equals("evalsha") && !command.equals("eval") && !command.equals("set")
					&& !command.equals("incrby")) {
				assertThat(delta(before, after, command)).as("%s in %s -> %s", command, before, after)
					.isEqualTo(GCRA_SCRIPT_COMMANDS.contains(command) ? scriptCalls : 0);
			}
		}
		assertThat(delta(before, after, "set") + delta(before, after, "incrby")).as("writes in %s -> %s", before, after)
			.isEqualTo(scriptCalls);

		// the entry lapses on both instances at its expiry, and nothing is sent to Redis to lift it
		Map<String, Long> beforeExpiry = commandStats();
		RateLimitLists listsA = a.getBean(RateLimitLists.class);
		RateLimitLists listsB = b.getBean(RateLimitLists.class);
		byte[] client = dev.ratelimit.ClientIp.addressBytes("203.0.113.7");
		await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
			.until(() -> listsA.denial("probe", "probe", client) == null && listsB.denial("probe", "probe", client) == null);
		long lapsed = System.nanoTime() - denied;
		logger.info("The entry lapsed on both instances " + Duration.ofNanos(lapsed).toMillis() + " ms after the POST");
		assertThat(Duration.ofNanos(lapsed)).as("not before its 5 s").isGreaterThanOrEqualTo(Duration.ofMillis(4_900));
		assertThat(totalDelta(beforeExpiry, commandStats())).as("no call while it lapsed").isZero();
		assertThat(hello(httpA, "203.0.113.7").statusCode()).isEqualTo(200);
		assertThat(hello(httpB, "203.0.113.8").statusCode()).isEqualTo(200);
		assertThat(Duration.ofNanos(propagated)).as("refused on B within the bound").isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void anAllowEntrySkipsTheRulesItNamesAndWithoutRulesEveryRule() {
		HttpResponse<String> added = httpA.call("POST", "/actuator/ratelimits/lists/allow",
				"{\"entry\": \"198.51.100.9\", \"rules\": [\"hello\"]}", Map.of());
		assertThat(added.statusCode()).as(added.body()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
			.until(() -> !b.getBean(RateLimitLists.class).runtime(ListKind.ALLOW).isEmpty());
		for (int i = 0; i < 8; i++) {
			assertThat(hello((i % 2 == 0) ? httpA : httpB, "198.51.100.9").statusCode()).as("hello is skipped")
				.isEqualTo(200);
		}
		assertThat(admitted("/composite/a", "198.51.100.9", 4)).as("composite still limits it (2 per hour)")
			.isEqualTo(2);
		assertThat(admitted("/hello", "198.51.100.10", 5)).as("another client keeps hello's 3").isEqualTo(3);
		assertThat(httpB.call("POST", "/actuator/ratelimits/lists/allow", "{\"entry\": \"198.51.100.9\"}", Map.of())
			.statusCode()).as("replaced, now for every rule").isEqualTo(200);
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
			.until(() -> a.getBean(RateLimitLists.class).runtime(ListKind.ALLOW).get(0).rules().isEmpty());
		assertThat(admitted("/composite/b", "198.51.100.9", 4)).isEqualTo(4);
		assertThat(admitted("/hello", "192.0.2.1", 5)).as("the configured allow entry").isEqualTo(5);
	}

	@Test
	void anIpv6NetworkASubjectAndAnAnnotatedCallAreRefused() {
		assertThat(httpA.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"2001:DB8::/32\"}", Map.of())
			.statusCode()).isEqualTo(200);
		assertThat(httpA.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"mallory\"}", Map.of())
			.statusCode()).isEqualTo(200);
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
			.until(() -> b.getBean(RateLimitLists.class).runtime(ListKind.DENY).size() == 2);
		for (TestHttp http : new TestHttp[] { httpA, httpB }) {
			assertThat(hello(http, "2001:db8:1:2::7").statusCode()).isEqualTo(403);
			assertThat(hello(http, "2001:db9::7").statusCode()).isEqualTo(200);
			assertThat(http.get("/search", Map.of("X-API-Key", "key-banned")).statusCode()).as("configured subject")
				.isEqualTo(403);
			assertThat(http.get("/search", Map.of("X-API-Key", "key-fine")).statusCode()).isEqualTo(200);
			HttpResponse<String> annotated = http.get("/reports/mallory", Map.of());
			assertThat(annotated.statusCode()).as("@RateLimited(rule = \"reports\", key = \"#user\")").isEqualTo(403);
			assertThat(annotated.body()).contains("\"violated-policies\":[\"reports\"]");
			assertThat(http.get("/reports/alice", Map.of()).statusCode()).isEqualTo(200);
		}
		JsonNode lists = json.readTree(httpB.get("/actuator/ratelimits/lists").body());
		assertThat(lists.get("deny")).hasSize(3);
		assertThat(lists.get("deny").get(0).get("source").asString()).isEqualTo("configuration");
		assertThat(lists.get("deny").get(1).get("entry").asString()).isIn("2001:db8::/32", "mallory");
		assertThat(lists.get("allow").get(0).get("entry").asString()).isEqualTo("192.0.2.1");
		assertThat(httpB.call("DELETE", "/actuator/ratelimits/lists/deny?entry=2001:db8:0::/32", null, Map.of())
			.statusCode()).as("removed through the other instance, in another form").isEqualTo(200);
		await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(5))
			.until(() -> hello(httpA, "2001:db8:1:2::7").statusCode() == 200);
		assertThat(httpB.call("DELETE", "/actuator/ratelimits/lists/deny?entry=2001:db8::/32", null, Map.of())
			.statusCode()).as("gone").isEqualTo(404);
	}

	@Test
	void invalidChangesAreAnsweredBadRequestWithTheReason() {
		assertBadRequest("deny", "{}", "give the entry");
		assertBadRequest("deny", "{\"entry\": \" \"}", "give the entry");
		assertBadRequest("deny", "{\"entry\": \"203.0.113.0/33\"}", "invalid prefix length");
		assertBadRequest("deny", "{\"entry\": \"2001:db8::/200\"}", "between 0 and 128");
		assertBadRequest("deny", "{\"entry\": \"999.0.113.1\"}", "not a valid IPv4 address");
		assertBadRequest("deny", "{\"entry\": \"203.0.113.0/24\", \"ttl\": \"soon\"}", "ttl");
		assertBadRequest("deny", "{\"entry\": \"203.0.113.0/24\", \"rules\": [\"hello\"]}", "'rules' is for the allow list");
		assertBadRequest("allow", "{\"entry\": \"203.0.113.0/24\", \"rules\": [\"nope\"]}", "unknown rule 'nope'");
		assertBadRequest("allow", "{\"entry\": \"203.0.113.0/24\", \"rules\": []}", "give the rules");
		assertBadRequest("maybe", "{\"entry\": \"203.0.113.0/24\"}", "unknown list 'maybe'");
		assertBadRequest("deny", "{\"entry\": \"203.0.113.0/24\", \"limit\": 5}", "unknown field 'limit'");
		assertBadRequest("deny", "{\"entry\": \"203.0.113.0/24\", \"tll\": \"5s\"}", "unknown field 'tll'");
		for (int i = 0; i < 4; i++) {
			assertThat(httpA.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"user-" + i + "\"}",
					Map.of()).statusCode()).isEqualTo(200);
		}
		assertBadRequest("deny", "{\"entry\": \"user-9\"}", "as many entries as ratelimit.lists.max-entries (4)");
		assertThat(httpA.call("POST", "/actuator/ratelimits/lists/deny", "{\"entry\": \"user-3\", \"ttl\": \"1h\"}",
				Map.of()).statusCode()).as("replacing one is not adding one").isEqualTo(200);
		HttpResponse<String> configured = httpA.call("DELETE", "/actuator/ratelimits/lists/deny?entry=key-banned", null,
				Map.of());
		assertThat(configured.statusCode()).isEqualTo(400);
		assertThat(configured.body()).contains("remove it from ratelimit.lists.deny");
		assertThat(httpA.call("DELETE", "/actuator/ratelimits/lists/deny", null, Map.of()).statusCode()).isEqualTo(400);
		assertThat(httpA.call("POST", "/actuator/ratelimits/search/exceptions",
				"{\"subject\": \"u\", \"limit\": 5, \"entry\": \"x\"}", Map.of()).statusCode())
			.as("exceptions take no entry").isEqualTo(400);
	}

	private static void assertBadRequest(String list, String body, String reason) {
		HttpResponse<String> response = httpA.call("POST", "/actuator/ratelimits/lists/" + list, body, Map.of());
		assertThat(response.statusCode()).as(body).isEqualTo(400);
		assertThat(json.readTree(response.body()).get("reason").asString()).as(body).contains(reason);
	}

	private static HttpResponse<String> hello(TestHttp http, String client) {
		return http.get("/hello", Map.of("X-Forwarded-For", client));
	}

	private static int admitted(String path, String client, int requests) {
		int admitted = 0;
		for (int i = 0; i < requests; i++) {
			HttpResponse<String> response = ((i % 2 == 0) ? httpA : httpB).get(path,
					Map.of("X-Forwarded-For", client, "X-Tenant", "t"));
			assertThat(response.statusCode()).isIn(200, 429);
			admitted += (response.statusCode() == 200) ? 1 : 0;
		}
		return admitted;
	}

	/** Calls per command since the server started, from {@code INFO commandstats}, without INFO itself. */
	private static Map<String, Long> commandStats() {
		Properties info;
		try (RedisConnection connection = a.getBean(RedisConnectionFactory.class).getConnection()) {
			info = connection.serverCommands().info("commandstats");
		}
		Map<String, Long> calls = new java.util.TreeMap<>();
		info.stringPropertyNames().stream().filter((name) -> name.startsWith("cmdstat_") && !name.equals("cmdstat_info"))
			.forEach((name) -> calls.put(name.substring("cmdstat_".length()),
					Long.parseLong(info.getProperty(name).replaceAll("^calls=(\\d+).*", "$1"))));
		return calls;
	}

	private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
		return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
	}

	private static long totalDelta(Map<String, Long> before, Map<String, Long> after) {
		return after.keySet().stream().mapToLong((command) -> delta(before, after, command)).sum();
	}

}
