package dev.ratelimit.web;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.RateLimited;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * A login whose failures count ({@code count-when-login}: 401 only) and a service whose calls count only when they
 * throw {@link IllegalArgumentException} ({@code count-when-calls}), for {@code CountWhenIntegrationTests}. The login
 * counts the requests that reached its password check, and can hold them there until the test opens its gate. Added
 * to {@link HttpTestApplication} by that test only, since its rules live in {@code ratelimit-http-test.yml}.
 */
@Configuration(proxyBeanMethods = false)
class CountWhenEndpoints {

	@Bean
	PasswordChecks countWhenPasswordChecks() {
		return new PasswordChecks();
	}

	@Bean
	CountedCalls countWhenCalls() {
		return new CountedCalls();
	}

	/** The requests that reached the password check, and the gate they wait at. */
	static final class PasswordChecks {

		final AtomicInteger reached = new AtomicInteger();

		private volatile CountDownLatch gate = new CountDownLatch(0);

		void close() {
			this.gate = new CountDownLatch(1);
		}

		void open() {
			this.gate.countDown();
		}

		boolean check(String password) throws InterruptedException {
			this.reached.incrementAndGet();
			if (!this.gate.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("the gate stayed closed");
			}
			return "right".equals(password);
		}

	}

	/** Registered as a member of this configuration. */
	@RestController
	static final class Login {

		private final PasswordChecks checks;

		Login(PasswordChecks checks) {
			this.checks = checks;
		}

		@PostMapping("/count-when/login")
		ResponseEntity<String> login(@RequestHeader("X-User") String user, @RequestHeader("X-Password") String password)
				throws InterruptedException {
			return this.checks.check(password) ? ResponseEntity.ok("welcome " + user)
					: ResponseEntity.status(HttpStatus.UNAUTHORIZED).body("wrong password");
		}

	}

	static class CountedCalls {

		@RateLimited(rule = "count-when-calls", key = "#user")
		public String call(String user, RuntimeException failure) {
			if (failure != null) {
				throw failure;
			}
			return "called";
		}

	}

}
