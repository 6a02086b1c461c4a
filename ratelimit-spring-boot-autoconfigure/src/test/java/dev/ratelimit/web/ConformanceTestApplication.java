package dev.ratelimit.web;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application of the conformance suite of the rate limit fields, on the servlet stack or (with
 * {@code spring.main.web-application-type=reactive}) on WebFlux: endpoints that answer 200 and nothing else, limited by the rules of {@code ratelimit-conformance-test.yml}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = {
		"org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
		"org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
@Import(ConformanceTestApplication.Endpoints.class)
public class ConformanceTestApplication {

	/** Leaves Spring Security out of the application when it runs on WebFlux. */
	public static final String EXCLUDE_REACTIVE_SECURITY = "spring.autoconfigure.exclude="
			+ "org.springframework.boot.security.autoconfigure.ReactiveUserDetailsServiceAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.web.reactive.ReactiveWebSecurityAutoConfiguration,"
			+ "org.springframework.boot.security.autoconfigure.actuate.web.reactive.ReactiveManagementWebSecurityAutoConfiguration";

	@RestController
	static class Endpoints {

		@GetMapping({ "/cf/**", "/api/orders" })
		String ok() {
			return "ok";
		}

		/** Two endpoints of their own, so that key {@code endpoint} tells them apart. */
		@GetMapping({ "/cf/http/composite/a", "/cf/http/composite/b" })
		String composite() {
			return "ok";
		}

	}

}
