package dev.ratelimit.web;

import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

import dev.ratelimit.RateLimited;
import dev.ratelimit.Verdict;
import dev.ratelimit.adaptive.AdaptiveDenial;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * An application for {@code DenialStatusIntegrationTests}, with the rules of {@code ratelimit-status-test.yml}:
 * endpoints that hold their requests until the test lets them go, under the filter's rules and under
 * {@code @RateLimited}, and a replaced {@link RateLimitRejectionHandler} that shows which status it was asked for.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@Import(StatusTestApplication.Endpoints.class)
public class StatusTestApplication {

	/** The header in which the replaced rejection handler says which status the denial asked for. */
	static final String SEEN_STATUS = "X-Seen-Status";

	@Bean
	Held statusHeld() {
		return new Held();
	}

	/** Answers as the default does, and says which status the verdict or the adaptive denial asked for. */
	@Bean
	RateLimitRejectionHandler statusRejectionHandler() {
		ProblemDetailRejectionHandler standard = new ProblemDetailRejectionHandler();
		return new RateLimitRejectionHandler() {

			@Override
			public void reject(HttpServletRequest request, HttpServletResponse response, Verdict verdict)
					throws IOException {
				response.setHeader(SEEN_STATUS, Integer.toString(verdict.denialStatus().code()));
				standard.reject(request, response, verdict);
			}

			@Override
			public void rejectOverloaded(HttpServletRequest request, HttpServletResponse response,
					AdaptiveDenial denial) throws IOException {
				response.setHeader(SEEN_STATUS, Integer.toString(denial.status().code()));
				standard.rejectOverloaded(request, response, denial);
			}

		};
	}

	/** The requests and calls in progress, for the test to end. */
	static final class Held {

		final BlockingQueue<DeferredResult<String>> requests = new LinkedBlockingQueue<>();

		final BlockingQueue<CompletableFuture<String>> calls = new LinkedBlockingQueue<>();

	}

	/** Registered as a member of this application. */
	@RestController
	static class Endpoints {

		private final Held held;

		Endpoints(Held held) {
			this.held = held;
		}

		@GetMapping({ "/status/global/hold", "/status/client/hold", "/status/override/hold", "/status/both/hold",
				"/status/adaptive/hold" })
		DeferredResult<String> hold() {
			DeferredResult<String> result = new DeferredResult<>();
			this.held.requests.add(result);
			return result;
		}

		@GetMapping("/status/rate")
		String rate() {
			return "ok";
		}

		@GetMapping("/aspect/cap")
		@RateLimited(rule = "aspect-cap")
		CompletableFuture<String> cap() {
			CompletableFuture<String> call = new CompletableFuture<>();
			this.held.calls.add(call);
			return call;
		}

		@GetMapping("/aspect/adaptive")
		@RateLimited(rule = "aspect-adaptive")
		CompletableFuture<String> adaptive() {
			CompletableFuture<String> call = new CompletableFuture<>();
			this.held.calls.add(call);
			return call;
		}

	}

}
