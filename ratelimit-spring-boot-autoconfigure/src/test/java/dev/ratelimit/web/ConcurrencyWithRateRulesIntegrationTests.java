package dev.ratelimit.web;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.resilience.DenyCache;
import dev.ratelimit.resilience.ResilientRateLimiter;
import dev.ratelimit.test.TestHttp;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneExtension;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.context.request.async.DeferredResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A rate rule ({@code aon-rate}, 2 per hour) and a concurrency rule ({@code aon-cap}, 1 in progress) on the same
 * paths and key decide each request together, all or nothing, over HTTP: a request denied by one rule writes nothing
 * under the other. Read in Redis: the state itself, and the keyspace notifications of every write while the denied
 * request was decided (so that even a lease taken and given back at once would show).
 */
@RedisStandaloneTest
@SpringBootTest(classes = HttpTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "spring.config.name=ratelimit-http-test")
class ConcurrencyWithRateRulesIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	@LocalServerPort
	private int port;

	@Autowired
	private ConcurrencyEndpoints.HeldRequests held;

	@Autowired
	private RateLimiter limiter;

	private final RedisEndpoint redis = RedisStandaloneExtension.shared();

	private final String client = "client-" + UUID.randomUUID();

	private final BlockingQueue<String> writes = new LinkedBlockingQueue<>();

	private @Nullable String notifications;

	private @Nullable RedisClient redisClient;

	private @Nullable StatefulRedisPubSubConnection<String, String> subscription;

	@DynamicPropertySource
	static void redis(DynamicPropertyRegistry registry) {
		registry.add("spring.data.redis.url", RedisStandaloneExtension.shared()::uri);
	}

	/** Subscribes to the notifications of every write to this client's keys under both rules. */
	@BeforeEach
	void subscribeToWrites() {
		this.notifications = this.redis.call((commands) -> commands.configGet("notify-keyspace-events"))
			.get("notify-keyspace-events");
		this.redis.call((commands) -> commands.configSet("notify-keyspace-events", "KA"));
		this.redisClient = RedisClient.create(this.redis.uri());
		this.subscription = this.redisClient.connectPubSub();
		this.subscription.addListener(new RedisPubSubAdapter<>() {

			@Override
			public void message(String pattern, String channel, String message) {
				ConcurrencyWithRateRulesIntegrationTests.this.writes
					.add(channel.substring(channel.indexOf(':') + 1) + " " + message);
			}

		});
		this.subscription.sync().psubscribe("__keyspace@*__:*" + this.client + "*");
	}

	@AfterEach
	void unsubscribe() {
		if (this.subscription != null) {
			this.subscription.close();
		}
		if (this.redisClient != null) {
			this.redisClient.shutdown();
		}
		String previous = (this.notifications != null) ? this.notifications : "";
		this.redis.call((commands) -> commands.configSet("notify-keyspace-events", previous));
	}

	@Test
	void requestDeniedByItsConcurrencyRuleConsumesNoRateQuota() throws Exception {
		CompletableFuture<HttpResponse<String>> inProgress = new TestHttp(this.port).getAsync("/aon/held",
				Map.of("X-Client", this.client));
		DeferredResult<String> result = await().atMost(TIMEOUT).until(this.held.results::poll, Objects::nonNull);
		assertThat(rateCount()).as("the request in progress counts once").isEqualTo(1);
		assertThat(leases()).isEqualTo(1);
		assertThat(writesUntilNow()).as("the admitted request's writes are seen")
			.anyMatch((write) -> write.startsWith(key("aon-rate") + " "))
			.anyMatch((write) -> write.startsWith(key("aon-cap") + " zadd"));
		// this client's first denial: decided in Redis, not answered by the deny cache
		HttpResponse<String> denied = get();
		assertThat(denied.statusCode()).as("its place is taken").isEqualTo(429);
		assertThat(writesUntilNow()).as("writes while the denied request was decided").isEmpty();
		assertThat(rateCount()).as("no quota consumed").isEqualTo(1);
		result.setResult("done");
		assertThat(inProgress.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).statusCode()).isEqualTo(200);
		await().atMost(TIMEOUT).until(() -> leases() == 0);
		// the deny cache answers this client's requests from memory for the denial's Retry-After (up to 1 s for a
		// concurrency denial), without asking Redis; this is about Redis's state, so let the next request reach it
		forgetDenials();
		assertThat(get().statusCode()).as("the second request of the rate's 2").isEqualTo(200);
		assertThat(rateCount()).isEqualTo(2);
	}

	@Test
	void requestDeniedByItsRateRuleHoldsNoLease() {
		assertAdmitted(get());
		// the response reaches the client before the filter releases the request's lease (Spring MVC flushes the
		// body as it writes it), so the next request of a cap of 1 waits for the release: seen twice in full builds
		await().atMost(TIMEOUT).until(() -> leases() == 0);
		assertAdmitted(get());
		await().atMost(TIMEOUT).until(() -> leases() == 0);
		assertThat(writesUntilNow()).as("the admitted requests took and gave back their leases")
			.anyMatch((write) -> write.startsWith(key("aon-cap") + " zadd"))
			.anyMatch((write) -> write.startsWith(key("aon-cap") + " zrem"));
		// this client's first denial: decided in Redis, not answered by the deny cache
		HttpResponse<String> denied = get();
		assertThat(denied.statusCode()).as("the rate's 2 are used, the place is free").isEqualTo(429);
		assertThat(writesUntilNow()).as("writes while the denied request was decided").isEmpty();
		assertThat(leases()).isZero();
		assertThat(rateCount()).isEqualTo(2);
	}

	/** Asserts a 200, telling a denial's headers and problem when it is not. */
	private static void assertAdmitted(HttpResponse<String> response) {
		assertThat(response.statusCode()).as("admitted; was answered %s %s", response.headers().map(), response.body())
			.isEqualTo(200);
	}

	private void forgetDenials() {
		DenyCache denyCache = ((ResilientRateLimiter) this.limiter).denyCache();
		if (denyCache != null) {
			denyCache.clear();
		}
	}

	private HttpResponse<String> get() {
		return new TestHttp(this.port).get("/aon/now", Map.of("X-Client", this.client), TIMEOUT);
	}

	/**
	 * Returns the writes to this client's keys notified since the last call: it writes a marker key of its own and
	 * takes every notification before the marker's, which Redis sends in the order of the writes (those of earlier
	 * markers left out).
	 */
	private List<String> writesUntilNow() {
		String marker = "marker:" + this.client + ":" + UUID.randomUUID();
		this.redis.call((commands) -> commands.set(marker, "1", SetArgs.Builder.px(60_000)));
		List<String> writes = new ArrayList<>();
		while (true) {
			String write = await().atMost(TIMEOUT).until(this.writes::poll, Objects::nonNull);
			if (write.equals(marker + " set")) {
				return writes;
			}
			if (!write.startsWith("marker:")) {
				writes.add(write);
			}
		}
	}

	private String key(String rule) {
		return "rl-http:{" + rule + ":" + this.client + "}";
	}

	/** Returns the requests counted in this client's fixed window ({@code 'windowStart count'}), read in Redis. */
	private long rateCount() {
		String state = this.redis.call((commands) -> commands.get(key("aon-rate")));
		assertThat(state).as("the rate's state").isNotNull();
		return Long.parseLong(state.substring(state.indexOf(' ') + 1));
	}

	/** Returns the slots held in this client's lease set, read in Redis. */
	private long leases() {
		Long slots = this.redis.call((commands) -> commands.zcard(key("aon-cap")));
		return slots;
	}

}
