package dev.ratelimit.sync;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStoreBuilder;
import dev.ratelimit.redis.RedisStoreConnection;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.test.Hammer;
import dev.ratelimit.test.TcpProxy;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Local-first decisions ({@code sync: local}) against a real Redis: four instances (each its own Redis connection,
 * store and {@link LocalSyncStore}), sixteen threads each, hammering one GCRA key of 1,000 per second for 10 s, admit
 * no more than the exact limit over that time plus the bound of docs/consistency.md, and at least 95% of what the
 * exact mode admits in the same conditions; and while Redis cannot be reached for 5 s they keep deciding, and once it
 * can, every key's count in Redis holds every unit admitted.
 */
@RedisStandaloneTest
class LocalSyncIntegrationTests {

	private static final int INSTANCES = 4;

	private static final int THREADS = 16;

	private static final Duration RUN = Duration.ofSeconds(Long.getLong("ratelimit.sync.run-seconds", 10));

	private static final SyncSettings SETTINGS = new SyncSettings(Duration.ofMillis(100), 100);

	private final List<AutoCloseable> toClose = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.toClose.size() - 1; i >= 0; i--) {
			this.toClose.get(i).close();
		}
	}

	@Test
	void fourInstancesOnOneHotKeyStayWithinTheBoundAndNearTheExactMode(RedisEndpoint redis) throws Exception {
		RateLimitPolicy policy = RateLimitPolicy.of("hot", Algorithm.GCRA, 1000, Duration.ofSeconds(1));
		Hammer.Run exact = hammer(policy, "exact-" + UUID.randomUUID(), exactInstances(redis));
		Hammer.Run local = hammer(policy, "local-" + UUID.randomUUID(), localInstances(redis, policy));
		// the most any limiter may admit in a run: the burst, plus the rate over the run's measured length
		long exactLimit = policy.capacity()
				+ -Math.floorDiv(-Math.max(exact.nanos(), local.nanos()) * policy.limit(), TimeUnit.SECONDS.toNanos(1));
		long bound = INSTANCES * SETTINGS.threshold()
				+ SETTINGS.interval().toNanos() * policy.limit() / TimeUnit.SECONDS.toNanos(1);
		System.out.printf("exact: %d admitted of %d decisions; local: %d admitted of %d decisions; exact limit %d,"
				+ " bound %d (over-admission %d, %.2f%% of the exact mode)%n", exact.admitted(), exact.decisions(),
				local.admitted(), local.decisions(), exactLimit, bound, local.admitted() - exactLimit,
				100.0 * local.admitted() / exact.admitted());
		assertThat(local.admitted()).as("local: at most the exact limit plus the bound")
			.isLessThanOrEqualTo(exactLimit + bound);
		assertThat(local.admitted()).as("local: at least 95% of the exact mode")
			.isGreaterThanOrEqualTo(exact.admitted() * 95 / 100);
		assertThat(exact.admitted()).as("exact").isLessThanOrEqualTo(exactLimit);
	}

	@Test
	void whileRedisIsAwayLocalViewsKeepDecidingAndTheirUnitsArriveWhenItIsBack(RedisEndpoint redis) throws Exception {
		TcpProxy proxy = new TcpProxy(redis.host(), redis.port());
		this.toClose.add(proxy);
		RedisEndpoint proxied = new RedisEndpoint(redis.host(), proxy.port(),
				"redis://" + redis.host() + ":" + proxy.port(), false);
		// a fixed window of an hour with room for everything: the count in Redis is the units admitted
		RateLimitPolicy policy = RateLimitPolicy.of("outage", Algorithm.FIXED_WINDOW, 10_000_000, Duration.ofHours(1));
		List<RateLimiter> instances = localInstances(proxied, policy);
		String prefix = "out-" + UUID.randomUUID() + "-";
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong admitted = new AtomicLong();
		AtomicLong failures = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(INSTANCES * 2);
		List<Future<?>> workers = new ArrayList<>();
		for (int i = 0; i < INSTANCES * 2; i++) {
			RateLimiter limiter = instances.get(i % INSTANCES);
			int worker = i;
			workers.add(pool.submit(() -> {
				int n = 0;
				while (running.get()) {
					try {
						Verdict verdict = limiter.evaluate(RateLimitCheck.of(policy, prefix + ((worker + n++) % 10)));
						if (verdict.allowed()) {
							admitted.incrementAndGet();
						}
					}
					catch (RuntimeException ex) {
						failures.incrementAndGet();
					}
				}
			}));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> admitted.get() > 1_000);
		proxy.partition();
		long atCut = admitted.get();
		// decisions go on without Redis for 5 s (by the clock: the outage itself is what is measured)
		long cutAt = System.nanoTime();
		await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ofSeconds(5)).until(() -> true);
		long duringOutage = admitted.get() - atCut;
		proxy.heal();
		await().atMost(Duration.ofSeconds(30)).until(() -> admitted.get() > atCut + duringOutage + 1_000);
		running.set(false);
		for (Future<?> w : workers) {
			w.get(30, TimeUnit.SECONDS);
		}
		pool.shutdown();
		System.out.printf("outage of %d ms: %d admitted before it, %d during it, %d in all; %d failures%n",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cutAt), atCut, duringOutage, admitted.get(),
				failures.get());
		assertThat(failures.get()).as("no decision failed").isZero();
		assertThat(duringOutage).as("decisions went on while Redis was away").isGreaterThan(100);
		// every view flushes at close; then Redis holds every unit admitted
		close();
		this.toClose.clear();
		long counted = 0;
		for (int k = 0; k < 10; k++) {
			String key = "rl:{outage:" + prefix + k + "}";
			String value = redis.call((commands) -> commands.get(key));
			counted += (value != null) ? Long.parseLong(value.split(" ")[1]) : 0;
		}
		assertThat(counted).as("the counts in Redis").isEqualTo(admitted.get());
	}

	private List<RateLimiter> exactInstances(RedisEndpoint redis) {
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			instances.add(new StoreRateLimiter(store(redis)));
		}
		return instances;
	}

	private List<RateLimiter> localInstances(RedisEndpoint redis, RateLimitPolicy policy) {
		List<RateLimiter> instances = new ArrayList<>();
		for (int i = 0; i < INSTANCES; i++) {
			RedisRateLimitStore store = store(redis);
			LocalSyncStore local = new LocalSyncStore(store, store,
					(name) -> name.equals(policy.name()) ? SETTINGS : null, 10_000, SETTINGS.interval(),
					SyncListener.NONE);
			this.toClose.add(local);
			instances.add(new StoreRateLimiter(local));
		}
		return instances;
	}

	private RedisRateLimitStore store(RedisEndpoint redis) {
		RedisClient client = RedisClient.create();
		client.setOptions(ClientOptions.builder()
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.build());
		this.toClose.add(client::shutdown);
		RedisRateLimitStore store = new RedisRateLimitStoreBuilder(
				RedisStoreConnection.of(client, RedisURI.create(redis.uri())), "rl")
			.timeout(Duration.ofMillis(500))
			.build();
		this.toClose.add(store);
		store.loadScripts();
		return store;
	}

	private static Hammer.Run hammer(RateLimitPolicy policy, String subject, List<RateLimiter> instances)
			throws Exception {
		return Hammer.run(INSTANCES * THREADS, RUN, (i) -> {
			RateLimiter limiter = instances.get(i % INSTANCES);
			return () -> limiter.evaluate(RateLimitCheck.of(policy, subject)).allowed();
		});
	}

}
