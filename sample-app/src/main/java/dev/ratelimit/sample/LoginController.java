package dev.ratelimit.sample;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /login} with form parameters {@code username} and {@code password}: limited per IP ({@code login-ip})
 * and per username ({@code login-user}, keyed by {@code #{request.getParameter('username')}}), so that guessing one
 * user's password is slow from any number of addresses. Form parameters, not JSON: the rate limit filter runs before
 * the body is read, and the servlet container parses a form for it.
 */
@RestController
class LoginController {

	static final String DEMO_USER = "demo";

	static final String DEMO_PASSWORD = "demo";

	@PostMapping(path = "/login", consumes = MediaType.APPLICATION_FORM_URLENCODED_VALUE)
	ResponseEntity<?> login(@RequestParam String username, @RequestParam String password) {
		// '&', not '&&', and constant-time comparisons: the answer time does not tell which part was wrong
		if (equal(username, DEMO_USER) & equal(password, DEMO_PASSWORD)) {
			return ResponseEntity.ok(new Welcome(username, "Welcome, " + username + "!"));
		}
		return ResponseEntity.status(HttpStatus.UNAUTHORIZED)
			.body(ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED, "Invalid username or password"));
	}

	private static boolean equal(String given, String expected) {
		return MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8), expected.getBytes(StandardCharsets.UTF_8));
	}

	record Welcome(String user, String message) {
	}

}
