package dev.ratelimit.web;

import dev.ratelimit.RateLimited;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small application for HTTP tests; its rules are in {@code ratelimit-http-test.yml}. Spring Security is on the
 * test class path for {@link SecurityHttpTestApplication}; this application leaves it out.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@Import({ HttpTestApplication.Endpoints.class, HttpTestApplication.Reports.class, CompletionEndpoints.class,
		AdaptiveEndpoints.class, ConcurrencyEndpoints.class, HttpTestApplication.WaitingEndpoints.class })
public class HttpTestApplication {

	@RestController
	static class Endpoints {

		private final Reports reports;

		Endpoints(Reports reports) {
			this.reports = reports;
		}

		@GetMapping({ "/hello", "/composite/a", "/composite/b", "/search", "/shadow", "/retry", "/open", "/login" })
		String ok() {
			return "ok";
		}

		@GetMapping("/annotated")
		@RateLimited(name = "annotated", limit = 2, period = "1h")
		String annotated() {
			return "annotated";
		}

		@GetMapping("/reports/{user}")
		String report(@PathVariable String user) {
			return this.reports.build(user);
		}

	}

	/** Answers when a request is handled, on the JVM's monotonic clock (shared by every instance in the test). */
	@RestController
	static class WaitingEndpoints {

		/** Answers when the request is handled and when its slot was scheduled (the same for one not delayed). */
		@GetMapping({ "/waiting/shaped", "/waiting/five", "/waiting/slow" })
		String handledAt(jakarta.servlet.http.HttpServletRequest request) {
			long now = System.nanoTime();
			Object slot = request.getAttribute(DelayedRequest.SLOT_NANOS_ATTRIBUTE);
			return now + " " + ((slot != null) ? slot : now);
		}

	}

	@Service
	static class Reports {

		@RateLimited(rule = "reports", key = "#user")
		public String build(String user) {
			return "report for " + user;
		}

	}

}
