package dev.ratelimit.web;

import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The problem responses: the types of draft-ietf-httpapi-ratelimit-headers-10, with {@code violated-policies}, read
 * back by parsing the body.
 */
class ProblemDetailRejectionHandlerTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final RateLimitCheck PER_SECOND = RateLimitCheck
		.of(RateLimitPolicy.of("per-second", Algorithm.GCRA, 5, Duration.ofSeconds(1)), "203.0.113.7");

	private static final RateLimitCheck PER_MINUTE = RateLimitCheck
		.of(RateLimitPolicy.of("per-minute", Algorithm.FIXED_WINDOW, 100, Duration.ofMinutes(1)), "203.0.113.7");

	private static final RateLimitCheck DAILY = RateLimitCheck
		.of(RateLimitPolicy.of("daily", Algorithm.SLIDING_WINDOW_LOG, 1000, Duration.ofDays(1)), "203.0.113.7");

	private final ProblemDetailRejectionHandler handler = new ProblemDetailRejectionHandler();

	@Test
	void aRequestOverItsQuotaIsQuotaExceededNamingEveryRuleThatDeniedIt() throws Exception {
		Verdict verdict = new Verdict(List.of(PER_SECOND, PER_MINUTE, DAILY),
				List.of(denied(Duration.ofMillis(200)), allowed(), denied(Duration.ofMillis(2500))));
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.handler.reject(new MockHttpServletRequest("GET", "/api/items"), response, verdict);
		assertThat(response.getStatus()).isEqualTo(429);
		assertThat(response.getContentType()).startsWith("application/problem+json");
		assertThat(response.getHeader("Retry-After")).isEqualTo("3");
		JsonNode body = json.readTree(response.getContentAsString());
		assertThat(body.get("type").asString())
			.isEqualTo("https://iana.org/assignments/http-problem-types#quota-exceeded");
		assertThat(body.get("title").asString()).isEqualTo("Request cannot be satisfied as assigned quota has been exceeded");
		assertThat(body.get("status").asInt()).isEqualTo(429);
		assertThat(body.get("instance").asString()).isEqualTo("/api/items");
		assertThat(body.get("detail").asString()).contains("'per-second', 'daily'");
		assertThat(names(body.get("violated-policies"))).containsExactly("per-second", "daily");
		assertThat(body.get("retryAfter").asLong()).isEqualTo(3);
		assertThat(body.has("rules")).isFalse();
	}

	@Test
	void aRuleThatFailsClosedWhileTheStoreIsUnavailableIsTemporaryReducedCapacity() throws Exception {
		Verdict verdict = new Verdict(List.of(PER_MINUTE),
				List.of(new Decision(false, 100, 0, Duration.ZERO, Duration.ofSeconds(1))), true);
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.handler.reject(new MockHttpServletRequest("GET", "/api/items"), response, verdict);
		assertReducedCapacity(response, "per-minute");
	}

	@Test
	void aFullAdaptiveConcurrencyLimitIsTemporaryReducedCapacity() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.handler.rejectOverloaded(new MockHttpServletRequest("GET", "/api/items"), response,
				new AdaptiveDenial("capacity", 12));
		assertReducedCapacity(response, "capacity");
	}

	private static void assertReducedCapacity(MockHttpServletResponse response, String rule) throws Exception {
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader("Retry-After")).isEqualTo("1");
		JsonNode body = json.readTree(response.getContentAsString());
		assertThat(body.get("type").asString())
			.isEqualTo("https://iana.org/assignments/http-problem-types#temporary-reduced-capacity");
		assertThat(body.get("title").asString()).isNotBlank();
		assertThat(body.get("status").asInt()).isEqualTo(503);
		assertThat(body.get("instance").asString()).isEqualTo("/api/items");
		assertThat(names(body.get("violated-policies"))).containsExactly(rule);
		assertThat(body.get("retryAfter").asLong()).isEqualTo(1);
	}

	private static List<String> names(JsonNode array) {
		List<String> names = new ArrayList<>();
		array.forEach((name) -> names.add(name.asString()));
		return names;
	}

	private static Decision allowed() {
		return new Decision(true, 100, 50, Duration.ofSeconds(30), Duration.ZERO);
	}

	private static Decision denied(Duration retryAfter) {
		return new Decision(false, 5, 0, Duration.ofSeconds(1), retryAfter);
	}

	@ParameterizedTest(name = "{0} µs -> {1} s")
	@CsvSource(textBlock = """
			1,          1
			999999,     1
			1000000,    1
			1000001,    2
			1500000,    2
			2000000,    2
			2000001,    3
			59999999,   60
			""")
	void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne(long micros, long seconds) {
		assertThat(ProblemDetailRejectionHandler.retryAfterSeconds(Duration.of(micros, ChronoUnit.MICROS)))
			.isEqualTo(seconds);
	}

}
