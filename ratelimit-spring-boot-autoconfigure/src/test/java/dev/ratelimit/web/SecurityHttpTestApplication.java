package dev.ratelimit.web;

import java.util.stream.Collectors;

import dev.ratelimit.Verdict;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small application behind Spring Security's HTTP Basic for HTTP tests; its rules are in
 * {@code ratelimit-security-test.yml}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(SecurityHttpTestApplication.Endpoints.class)
public class SecurityHttpTestApplication {

	@Bean
	SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
		http.authorizeHttpRequests((requests) -> requests.anyRequest().authenticated())
			.httpBasic(Customizer.withDefaults());
		return http.build();
	}

	@Bean
	UserDetailsService users() {
		return new InMemoryUserDetailsManager(User.withUsername("alice").password("{noop}alice-secret").build(),
				User.withUsername("bob").password("{noop}bob-secret").build());
	}

	@RestController
	static class Endpoints {

		@GetMapping("/secure/hello")
		String hello() {
			return "hello";
		}

		/** Lists the checks of the request's verdict as {@code rule=subject}, one a line. */
		@GetMapping("/account/checks")
		String checks(HttpServletRequest request) {
			Verdict verdict = (Verdict) request.getAttribute(RateLimitFilter.VERDICT_ATTRIBUTE);
			return verdict.checks()
				.stream()
				.map((check) -> check.policy().name() + "=" + check.subject())
				.collect(Collectors.joining("\n"));
		}

	}

}
