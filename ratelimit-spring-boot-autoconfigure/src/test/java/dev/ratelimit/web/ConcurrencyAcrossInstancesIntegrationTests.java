package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.key.KeyResolvers;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.web.context.request.async.DeferredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances of an application share one Redis and a {@code concurrency} rule: together they never have more
 * requests in progress than its limit, every request is answered, and the leases of an instance that was killed are
 * reclaimed once their lease timeout has passed.
 */
@RedisStandaloneTest
class ConcurrencyAcrossInstancesIntegrationTests {

	private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);

	/** The count of requests inside {@code /concurrency/slow}, shared by both instances. */
	private static final ConcurrencyEndpoints.InFlight inFlight = new ConcurrencyEndpoints.InFlight();

	private static ConfigurableApplicationContext first;

	private static ConfigurableApplicationContext second;

	private static RedisEndpoint redis;

	@BeforeAll
	static void start(RedisEndpoint endpoint) {
		redis = endpoint;
		first = start();
		second = start();
	}

	@AfterAll
	static void stop() {
		if (first != null) {
			first.close();
		}
		if (second != null) {
			second.close();
		}
	}

	/**
	 * 64 clients, half on each instance, make 25 requests each to an endpoint that counts the requests inside it at
	 * once, whichever instance they reached. The first 8 admitted wait inside until all 8 are there, so the cap is
	 * full (the test fails if it never is) while the others keep asking.
	 */
	@Test
	void requestsInsideTheEndpointAtOnceNeverExceedTheCapAcrossInstances() throws Exception {
		List<TestHttp> instances = List.of(new TestHttp(port(first)), new TestHttp(port(second)));
		Map<Integer, AtomicInteger> statuses = new ConcurrentHashMap<>();
		Race.run(64, (thread) -> {
			TestHttp http = instances.get(thread % 2);
			for (int i = 0; i < 25; i++) {
				HttpResponse<String> response = http.get("/concurrency/slow", Map.of(), CLIENT_TIMEOUT);
				statuses.computeIfAbsent(response.statusCode(), (status) -> new AtomicInteger()).incrementAndGet();
			}
		});
		assertThat(statuses.keySet()).as("every request admitted or denied").isSubsetOf(200, 429, 503);
		assertThat(statuses.values().stream().mapToInt(AtomicInteger::get).sum()).as("answered").isEqualTo(64 * 25);
		int admitted = statuses.get(200).get();
		assertThat(inFlight.entered.get()).as("entered the endpoint").isEqualTo(admitted);
		assertThat(admitted).as("more than the first 8: places are freed and taken again").isGreaterThan(8);
		assertThat(statuses.keySet()).as("some were denied").containsAnyOf(429, 503);
		assertThat(inFlight.most.get()).as("inside the endpoints of both instances together, at most").isEqualTo(8);
		assertThat(inFlight.now.get()).isZero();
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(leases("slow-cap")).isZero());
	}

	/**
	 * An instance (a store of its own, with its own connection) takes all 4 places of the rule {@code killed-cap}
	 * and dies without releasing them. The surviving instance denies until the 2 s lease timeout has passed on
	 * Redis's clock, then reclaims the dead leases on its next admission and has all 4 places again.
	 */
	@Test
	void leasesOfAKilledInstanceAreReclaimedAfterTheLeaseTimeout() throws Exception {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("killed-cap", 4, Duration.ofSeconds(2));
		String key = "rl-http:{killed-cap:" + KeyResolvers.GLOBAL + "}";
		long acquiring = System.nanoTime();
		List<Lease> dead = acquireAndDie(policy, 4);
		assertThat(members(key)).as("held by the dead").isEqualTo(4);
		TestHttp survivor = new TestHttp(port(first));
		assertThat(survivor.get("/concurrency/killed/now", Map.of(), CLIENT_TIMEOUT).statusCode())
			.as("every place is taken").isIn(429, 503);
		await().atMost(Duration.ofSeconds(15))
			.pollInterval(Duration.ofMillis(100))
			.until(() -> survivor.get("/concurrency/killed/now", Map.of(), CLIENT_TIMEOUT).statusCode() == 200);
		assertThat(Duration.ofNanos(System.nanoTime() - acquiring)).as("admitted only after the lease timeout")
			.isGreaterThanOrEqualTo(Duration.ofSeconds(2).minusMillis(10));
		for (Lease lease : dead) {
			String member = lease.id() + ":1";
			assertThat(redis.<@Nullable Double>call((commands) -> commands.zscore(key, member)))
				.as("the dead lease " + lease.id()).isNull();
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(members(key)).isZero());
		// the whole capacity is back: 4 requests in progress at once, and a fifth denied
		ConcurrencyEndpoints.HeldRequests held = first.getBean(ConcurrencyEndpoints.HeldRequests.class);
		List<CompletableFuture<HttpResponse<String>>> inProgress = new ArrayList<>();
		List<DeferredResult<String>> results = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			inProgress.add(survivor.getAsync("/concurrency/killed/held", Map.of()));
			results.add(await().atMost(Duration.ofSeconds(10)).until(held.results::poll, Objects::nonNull));
		}
		assertThat(members(key)).isEqualTo(4);
		assertThat(survivor.get("/concurrency/killed/now", Map.of(), CLIENT_TIMEOUT).statusCode()).isIn(429, 503);
		results.forEach((result) -> result.setResult("done"));
		for (CompletableFuture<HttpResponse<String>> response : inProgress) {
			assertThat(response.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		}
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(members(key)).isZero());
	}

	/** Acquires leases with a store of its own, on Redis's clock, then closes its connection, releasing nothing. */
	private static List<Lease> acquireAndDie(RateLimitPolicy policy, int count) {
		LettuceConnectionFactory connection = LettuceFactories.standalone(redis);
		try (RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(connection), "rl-http", Duration.ofSeconds(2))) {
			List<Lease> leases = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				Decision decision = store.evaluate(List.of(RateLimitCheck.of(policy, KeyResolvers.GLOBAL))).get(0);
				assertThat(decision.allowed()).isTrue();
				leases.add(Objects.requireNonNull(decision.lease()));
			}
			return leases;
		}
		finally {
			connection.destroy();
		}
	}

	private static ConfigurableApplicationContext start() {
		return new SpringApplicationBuilder(HttpTestApplication.class)
			.properties("spring.config.name=ratelimit-http-test", "server.port=0",
					"spring.data.redis.url=" + redis.uri())
			.initializers((context) -> context.getBeanFactory().registerSingleton("sharedInFlight", inFlight))
			.run();
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private static long leases(String rule) {
		return members("rl-http:{" + rule + ":" + KeyResolvers.GLOBAL + "}");
	}

	/** Returns the members of a sorted set: the slots held and not yet reclaimed, read in Redis. */
	private static long members(String key) {
		Long members = redis.call((commands) -> commands.zcard(key));
		return members;
	}

}
