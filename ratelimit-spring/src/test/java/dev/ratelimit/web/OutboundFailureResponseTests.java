package dev.ratelimit.web;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.Verdict;
import dev.ratelimit.client.OutboundRateLimitExceededException;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An inbound request that fails because an outbound call it needed was refused for its rate is answered 503 with
 * {@code Retry-After}: a dependency of the server is at its limit, not the client.
 */
class OutboundFailureResponseTests {

	private final RateLimitExceptionHandler handler = new RateLimitExceptionHandler(new ProblemDetailRejectionHandler());

	@Test
	void aProvidersRefusalIsTemporaryReducedCapacityWithItsRetryAfter() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.handler.handle(OutboundRateLimitExceededException.remote("payments-api", "api.payments.example", 429,
				Duration.ofMillis(2500), new Verdict(List.of(), List.of())), new MockHttpServletRequest("POST", "/orders"),
				response);
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader("Retry-After")).isEqualTo("3");
		assertThat(response.getContentAsString()).contains("temporary-reduced-capacity")
			.contains("\"violated-policies\":[\"payments-api\"]")
			.doesNotContain("api.payments.example");
	}

	@Test
	void aPausedCallIsTemporaryReducedCapacityWithThePauseLeft() throws Exception {
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.handler.handle(OutboundRateLimitExceededException.paused("payments-api", "api.payments.example",
				Duration.ofSeconds(40)), new MockHttpServletRequest("POST", "/orders"), response);
		assertThat(response.getStatus()).isEqualTo(503);
		assertThat(response.getHeader("Retry-After")).isEqualTo("40");
	}

}
