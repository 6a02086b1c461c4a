package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitListener;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Verdict;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.resilience.StoreFailureMode;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A request that the limiter decided without Redis (its call timed out or failed, or the breaker was open) is never
 * charged in Redis later. 8 threads evaluate 8 keys through a TCP proxy in front of Redis with an unlimited fixed
 * window, whose state is the count of admitted requests; Redis is cut off or made slow, and back. Afterwards each
 * key's count in Redis is at most the number of requests that Redis's decisions admitted: none of the checks that
 * Lettuce would have queued while disconnected, sent again after the reconnect, or that ran after the limiter gave
 * up on them, has left a charge. And the outage is logged calmly: one WARN when it began, one when it ended.
 */
@RedisStandaloneTest
@ExtendWith(OutputCaptureExtension.class)
class PhantomChargeIntegrationTests {

	private static final int THREADS = 8;

	private static final Duration TIMEOUT = Duration.ofMillis(100);

	private static final RateLimitPolicy POLICY = RateLimitPolicy.of("phantom", Algorithm.FIXED_WINDOW, 100_000_000,
			Duration.ofHours(1));

	@Test
	void checksInFlightOrQueuedWhenTheConnectionBreaksAreNeverChargedAfterTheReconnect(RedisEndpoint redis,
			CapturedOutput output) throws Exception {
		run(redis, output, "rl-phantom-cut", TcpProxy::partition, TcpProxy::heal);
	}

	@Test
	void checksThatRedisRunsAfterTheLimiterGaveUpOnThemAreGivenBack(RedisEndpoint redis, CapturedOutput output)
			throws Exception {
		run(redis, output, "rl-phantom-slow", (proxy) -> proxy.setReplyDelayMillis(TIMEOUT.toMillis() * 3),
				(proxy) -> proxy.setReplyDelayMillis(0));
	}

	private void run(RedisEndpoint redis, CapturedOutput output, String prefix, Consumer<TcpProxy> degrade,
			Consumer<TcpProxy> restore) throws Exception {
		// the reconnect back-off capped at 1 s, as the starter does (ratelimit.redis.cap-reconnect-delay)
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(50), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
		try (TcpProxy proxy = new TcpProxy(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(redis.host(), proxy.port()),
					LettuceClientConfiguration.builder().clientResources(resources).build());
			factory.afterPropertiesSet();
			factory.start();
			Load load = null;
			try (RedisRateLimitStore store = new RedisRateLimitStoreBuilder(SpringDataRedisConnection.of(factory), prefix).timeout(TIMEOUT).build()) {
				Map<String, AtomicInteger> admittedByRedis = new ConcurrentHashMap<>();
				ThreadLocal<String> subject = new ThreadLocal<>();
				AtomicInteger fallbackDecisions = new AtomicInteger();
				AtomicInteger redisDecisions = new AtomicInteger();
				try (ResilientRateLimiter limiter = ResilientRateLimiter.builder(store)
					.fallbackStore(new LocalRateLimitStore(1_000))
					.failureModes((name) -> StoreFailureMode.LOCAL)
					.circuitBreaker(CircuitBreaker.of(prefix, CircuitBreakerConfig.custom()
						.minimumNumberOfCalls(5)
						.slidingWindowSize(20)
						.waitDurationInOpenState(Duration.ofMillis(200))
						.permittedNumberOfCallsInHalfOpenState(3)
						.build()))
					.denyCache(false)
					.listener(new RateLimitListener() {

						@Override
						public void onVerdict(Verdict verdict, Source source) {
							if (source == Source.STORE) {
								redisDecisions.incrementAndGet();
								if (verdict.allowed()) {
									admittedByRedis.computeIfAbsent(subject.get(), (key) -> new AtomicInteger())
										.incrementAndGet();
								}
							}
							else if (source == Source.FALLBACK) {
								fallbackDecisions.incrementAndGet();
							}
						}

					})
					.build()) {
					// as the starter does at start-up: connected, and no NOSCRIPT round trips (the first Lettuce
					// connection in a JVM can take longer than the limiter's timeout)
					await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
						store.loadScripts();
						return true;
					});
					load = new Load(limiter, subject);
					await().atMost(Duration.ofSeconds(10)).until(() -> redisDecisions.get() >= 500);
					int logFrom = output.getOut().length();
					degrade.accept(proxy);
					await().atMost(Duration.ofSeconds(10)).until(() -> limiter.state() == StoreState.FALLBACK);
					int fallbackAtOutage = fallbackDecisions.get();
					await().atMost(Duration.ofSeconds(10)).until(() -> fallbackDecisions.get() >= fallbackAtOutage + 500);
					restore.accept(proxy);
					await().atMost(Duration.ofSeconds(10)).until(() -> limiter.state() == StoreState.REDIS);
					int redisAtRecovery = redisDecisions.get();
					await().atMost(Duration.ofSeconds(10)).until(() -> redisDecisions.get() >= redisAtRecovery + 500);
					load.stop();
					// late charges would arrive within moments of the reconnect: the counts must stay within bounds
					await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5))
						.untilAsserted(() -> assertThat(overCharged(redis, store, admittedByRedis))
							.as("keys charged more than Redis admitted")
							.isEmpty());
					assertThat(fallbackDecisions.get()).isGreaterThanOrEqualTo(500);
					assertThat(load.failures.get()).as("evaluations that threw").isZero();
					// calm: at most one line when the outage began and one when it ended, however many calls failed and
					// probes were tried (none if a hiccup under load was logged less than 10 s before)
					assertThat(lines(output, 0, "Rate limit store unavailable")).isPositive();
					assertThat(lines(output, logFrom, "Rate limit store unavailable")).isLessThanOrEqualTo(1);
					assertThat(lines(output, logFrom, "Rate limit store recovered")).isLessThanOrEqualTo(1);
				}
			}
			finally {
				if (load != null) {
					load.stop();
				}
				factory.destroy();
				resources.shutdown();
			}
		}
	}

	private static long lines(CapturedOutput output, int from, String text) {
		return output.getOut().substring(from).lines().filter((line) -> line.contains(text)).count();
	}

	/** Returns, for each key whose count in Redis exceeds the requests Redis admitted, the two numbers. */
	private static Map<String, String> overCharged(RedisEndpoint redis, RedisRateLimitStore store,
			Map<String, AtomicInteger> admittedByRedis) {
		Map<String, String> over = new TreeMap<>();
		RedisClient client = RedisClient.create(redis.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			for (int t = 0; t < THREADS; t++) {
				String subject = "key-" + t;
				String state = connection.sync().get(store.key(POLICY, subject));
				long charged = (state != null) ? Long.parseLong(state.split(" ")[1]) : 0;
				int admitted = admittedByRedis.getOrDefault(subject, new AtomicInteger()).get();
				if (charged > admitted) {
					over.put(subject, charged + " charged, " + admitted + " admitted");
				}
			}
		}
		finally {
			client.shutdown();
		}
		return over;
	}

	/** One thread per key, evaluating it until stopped. */
	private static final class Load {

		private final AtomicBoolean running = new AtomicBoolean(true);

		private final AtomicInteger failures = new AtomicInteger();

		private final ExecutorService pool = Executors.newFixedThreadPool(THREADS);

		private final List<Future<?>> workers = new ArrayList<>();

		Load(ResilientRateLimiter limiter, ThreadLocal<String> subject) {
			for (int t = 0; t < THREADS; t++) {
				String key = "key-" + t;
				this.workers.add(this.pool.submit(() -> {
					subject.set(key);
					RateLimitCheck check = RateLimitCheck.of(POLICY, key);
					while (this.running.get()) {
						try {
							limiter.evaluate(check);
						}
						catch (RuntimeException ex) {
							this.failures.incrementAndGet();
						}
					}
				}));
			}
		}

		void stop() throws Exception {
			this.running.set(false);
			for (Future<?> worker : this.workers) {
				worker.get(10, TimeUnit.SECONDS);
			}
			this.pool.shutdown();
		}

	}

}
