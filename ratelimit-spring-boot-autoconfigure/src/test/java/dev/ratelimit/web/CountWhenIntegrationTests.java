package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimitExceededException;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * {@code count-when}: a brute-force limit counts failed logins only, exactly under concurrency (a request takes its
 * unit before it runs), and a success gives its unit back when it ends, in Redis and in the metrics; the same for a
 * {@code @RateLimited} call by the exceptions it throws.
 */
@RedisStandaloneTest
@SpringBootTest(classes = { HttpTestApplication.class, CountWhenEndpoints.class }, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class CountWhenIntegrationTests {

	@LocalServerPort
	private int port;

	@Autowired
	private CountWhenEndpoints.PasswordChecks checks;

	@Autowired
	private CountWhenEndpoints.CountedCalls calls;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Autowired
	private MeterRegistry registry;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	/**
	 * 20 failed logins at once with a limit of 5: the 5 admitted hold their units at the password check (the gate
	 * stays closed until the 15 others have been answered), so the others are denied before they run. Were units
	 * counted only at the end, all 20 would wait at the gate and the test would time out waiting for the denials.
	 */
	@Test
	void parallelFailedLoginsCountExactlyTheLimit() throws Exception {
		String user = "parallel-" + UUID.randomUUID();
		int reachedBefore = this.checks.reached.get();
		ConcurrentLinkedQueue<Integer> statuses = new ConcurrentLinkedQueue<>();
		this.checks.close();
		try {
			CompletableFuture<Void> logins = CompletableFuture.runAsync(() -> {
				try {
					Race.run(20, (thread) -> statuses.add(login(user, "wrong-" + thread).statusCode()));
				}
				catch (Exception ex) {
					throw new IllegalStateException(ex);
				}
			});
			await().atMost(Duration.ofSeconds(20))
				.until(() -> statuses.stream().filter((status) -> status == 429).count() == 15);
			assertThat(this.checks.reached.get() - reachedBefore).as("requests waiting at the password check")
				.isEqualTo(5);
			this.checks.open();
			logins.get(30, TimeUnit.SECONDS);
		}
		finally {
			this.checks.open();
		}
		assertThat(statuses).hasSize(20).filteredOn((status) -> status == 401).hasSize(5);
		assertThat(this.checks.reached.get() - reachedBefore).as("requests that reached the password check")
			.isEqualTo(5);
		assertThat(entries(user)).as("failures counted in Redis").isEqualTo(5);
		assertThat(login(user, "right").statusCode()).as("at the limit, denied before it runs").isEqualTo(429);
		assertThat(this.checks.reached.get() - reachedBefore).isEqualTo(5);
	}

	@Test
	void successfulLoginsInBetweenNeverCount() {
		String user = "mixed-" + UUID.randomUUID();
		int reachedBefore = this.checks.reached.get();
		double refundedBefore = refunded("count-when-login");
		for (int i = 0; i < 4; i++) {
			assertThat(login(user, "wrong").statusCode()).isEqualTo(401);
		}
		assertThat(entries(user)).isEqualTo(4);
		for (int i = 0; i < 10; i++) {
			assertThat(login(user, "right").statusCode()).as("success %d", i).isEqualTo(200);
			// the unit comes back when the request ends, which may be just after the client has its answer
			await().atMost(Duration.ofSeconds(10)).until(() -> entries(user) == 4);
		}
		assertThat(refunded("count-when-login") - refundedBefore).as("ratelimit.requests{outcome=refunded}")
			.isEqualTo(10);
		assertThat(login(user, "wrong").statusCode()).as("the fifth failure").isEqualTo(401);
		assertThat(entries(user)).isEqualTo(5);
		assertThat(login(user, "wrong").statusCode()).isEqualTo(429);
		assertThat(login(user, "right").statusCode()).as("at the limit, even the right password waits").isEqualTo(429);
		assertThat(this.checks.reached.get() - reachedBefore).isEqualTo(4 + 10 + 1);
	}

	@Test
	void annotatedCallsCountOnlyTheListedExceptions() {
		String user = "calls-" + UUID.randomUUID();
		for (int i = 0; i < 5; i++) {
			assertThat(this.calls.call(user, null)).isEqualTo("called");
			int attempt = i;
			assertThatIllegalStateException()
				.isThrownBy(() -> this.calls.call(user, new IllegalStateException("not counted " + attempt)));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> this.calls.call(user, new IllegalArgumentException("1")));
		assertThatIllegalArgumentException().isThrownBy(() -> this.calls.call(user, new IllegalArgumentException("2")));
		assertThatExceptionOfType(RateLimitExceededException.class).isThrownBy(() -> this.calls.call(user, null));
	}

	private HttpResponse<String> login(String user, String password) {
		return new TestHttp(this.port).call("POST", "/count-when/login", null,
				Map.of("X-User", user, "X-Password", password));
	}

	/** Returns the units the sliding log holds for a user, read in Redis. */
	private long entries(String user) {
		try (var connection = this.connectionFactory.getConnection()) {
			Long count = connection.zSetCommands()
				.zCard(("rl-http:{count-when-login:" + user + "}").getBytes(StandardCharsets.UTF_8));
			return (count != null) ? count : 0;
		}
	}

	private double refunded(String rule) {
		List<Counter> counters = List.copyOf(this.registry.find("ratelimit.requests")
			.tags("rule", rule, "outcome", "refunded")
			.counters());
		return counters.stream().mapToDouble(Counter::count).sum();
	}

}
