package dev.ratelimit.web;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The stack-neutral headers and problem are what the servlet adapters write, with no servlet API involved.
 */
class RateLimitProblemTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final RateLimitCheck CHECK = RateLimitCheck
		.of(RateLimitPolicy.of("api", Algorithm.GCRA, 5, Duration.ofSeconds(1)), "203.0.113.7");

	@Test
	void theProblemCarriesStatusRetryAfterAndTheSameBodyAsTheServletHandler() throws Exception {
		Verdict verdict = new Verdict(List.of(CHECK),
				List.of(new Decision(false, 5, 0, Duration.ofSeconds(1), Duration.ofMillis(1200))));
		RateLimitProblem problem = RateLimitProblem.of(verdict, "/api/items");
		HttpHeaders headers = problem.headers();
		assertThat(problem.status()).isEqualTo(429);
		assertThat(headers.getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("2");
		assertThat(headers.getFirst(HttpHeaders.CONTENT_TYPE)).isEqualTo("application/problem+json;charset=UTF-8");
		MockHttpServletResponse response = new MockHttpServletResponse();
		new ProblemDetailRejectionHandler().reject(new MockHttpServletRequest("GET", "/api/items"), response, verdict);
		assertThat(json.readTree(problem.json())).isEqualTo(json.readTree(response.getContentAsString()));
		JsonNode body = json.readTree(problem.json());
		assertThat(body.get("violated-policies").get(0).asString()).isEqualTo("api");
	}

	@Test
	void aRequestNoWaitWouldHelpHasNoRetryAfter() {
		Verdict verdict = new Verdict(List.of(CHECK), List.of(new Decision(false, 5, 0, Duration.ofSeconds(1), Decision.NEVER)));
		RateLimitProblem problem = RateLimitProblem.of(verdict, "/api/items");
		assertThat(problem.retryAfter()).isNull();
		assertThat(problem.headers().containsHeader(HttpHeaders.RETRY_AFTER)).isFalse();
	}

	@Test
	void theHeadersAreTheServletWritersHeaders() {
		Verdict verdict = new Verdict(List.of(CHECK),
				List.of(new Decision(true, 5, 3, Duration.ofMillis(400), Duration.ZERO)));
		RateLimitHeaders headers = new RateLimitHeaders(HeaderStyle.BOTH, Clock.systemUTC(), null);
		HttpHeaders computed = headers.of(verdict);
		MockHttpServletResponse response = new MockHttpServletResponse();
		new StandardRateLimitHeadersWriter(headers).write(response, verdict);
		assertThat(computed.headerNames()).containsExactly("RateLimit-Policy", "RateLimit", "X-RateLimit-Limit",
				"X-RateLimit-Remaining", "X-RateLimit-Reset");
		computed.forEach((name, values) -> assertThat(response.getHeader(name)).isEqualTo(values.get(0)));
		assertThat(computed.getFirst("RateLimit-Policy")).isEqualTo("\"api\";q=5;w=1");
	}

	@Test
	void anUnavailableStoreGetsNoRateLimitHeaders() {
		Verdict verdict = new Verdict(List.of(CHECK),
				List.of(new Decision(false, 5, 0, Duration.ZERO, Duration.ofSeconds(1))), true);
		assertThat(new RateLimitHeaders(HeaderStyle.BOTH, Clock.systemUTC(), null).of(verdict).isEmpty()).isTrue();
	}

}
