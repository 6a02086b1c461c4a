package dev.ratelimit.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application of the servlet stack's conformance suite of the rate limit fields: endpoints that answer 200 and
 * nothing else, limited by the rules of {@code ratelimit-conformance-test.yml}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@Import(ConformanceTestApplication.Endpoints.class)
public class ConformanceTestApplication {

	@RestController
	static class Endpoints {

		@GetMapping({ "/cf/**", "/api/orders" })
		String ok() {
			return "ok";
		}

	}

}
