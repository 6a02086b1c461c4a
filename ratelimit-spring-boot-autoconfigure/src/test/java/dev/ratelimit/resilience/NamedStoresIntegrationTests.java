package dev.ratelimit.resilience;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.ratelimit.InvalidRateLimitConfigurationException;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.autoconfigure.RateLimitAutoConfiguration;
import dev.ratelimit.autoconfigure.RateLimitRedisAutoConfiguration;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RateLimitUsage;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.RoutingRateLimitStore;
import dev.ratelimit.store.StoreState;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A billing quota on a named store ({@code ratelimit.stores.billing}), a Redis with {@code appendonly yes} and
 * {@code appendfsync always}, survives {@code kill -9} of that Redis and its restart on the same port and directory
 * with every admitted unit still counted, while a traffic rule on the application's Redis keeps deciding from its
 * store throughout (its circuit stays closed, and every one of its admissions is counted in its Redis).
 */
class NamedStoresIntegrationTests {

	private static final int QUOTA_THREADS = 4;

	private static final Log logger = LogFactory.getLog(NamedStoresIntegrationTests.class);

	@Test
	void quotaOnAnAppendOnlyStoreSurvivesKillNineWhileTrafficKeepsDecidingOnTheOtherStore() throws Exception {
		try (RedisServerProcess traffic = RedisServerProcess.start();
				RedisServerProcess billing = RedisServerProcess.start("--appendonly", "yes", "--appendfsync", "always")) {
			LettuceConnectionFactory factory = LettuceFactories.standalone(traffic.endpoint());
			try {
				runner(factory, billing).run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(context.getBean(RateLimitStore.class)).isInstanceOf(RoutingRateLimitStore.class);
					ResilientRateLimiter limiter = (ResilientRateLimiter) context.getBean(RateLimiter.class);
					RateLimitRules rules = context.getBean(RateLimitRules.class);
					RateLimitRule quota = rules.get("quota").orElseThrow();
					RateLimitRule api = rules.get("api").orElseThrow();
					AtomicBoolean trafficRuns = new AtomicBoolean(true);
					AtomicLong trafficAdmitted = new AtomicLong();
					AtomicLong trafficDenied = new AtomicLong();
					Thread trafficLoad = new Thread(() -> {
						while (trafficRuns.get()) {
							Verdict verdict = limiter.evaluate(RateLimitCheck.of(api.policy(), "client"));
							// a fallback admission (allow) would be missing from the count in Redis, checked below
							(verdict.allowed() ? trafficAdmitted : trafficDenied).incrementAndGet();
						}
					}, "traffic");
					trafficLoad.start();
					AtomicBoolean quotaRuns = new AtomicBoolean(true);
					AtomicLong quotaAdmitted = new AtomicLong();
					List<Thread> quotaLoad = new ArrayList<>();
					for (int i = 0; i < QUOTA_THREADS; i++) {
						Thread thread = new Thread(() -> {
							while (quotaRuns.get()) {
								if (limiter.evaluate(RateLimitCheck.of(quota.policy(), "customer-1")).allowed()) {
									quotaAdmitted.incrementAndGet();
								}
							}
						}, "quota-" + i);
						thread.start();
						quotaLoad.add(thread);
					}
					await().atMost(Duration.ofSeconds(20)).until(() -> quotaAdmitted.get() >= 500);
					billing.kill();
					await().atMost(Duration.ofSeconds(10))
						.until(() -> limiter.nodes().get("billing").state() == StoreState.FALLBACK);
					long trafficAtOutage = trafficAdmitted.get();
					await().atMost(Duration.ofSeconds(10)).until(() -> trafficAdmitted.get() >= trafficAtOutage + 500);
					assertThat(limiter.nodes().get("default").state()).as("the traffic store's circuit")
						.isEqualTo(StoreState.REDIS);
					quotaRuns.set(false);
					for (Thread thread : quotaLoad) {
						thread.join();
					}
					long admitted = quotaAdmitted.get();
					billing.restart();
					long counted = quotaCount(billing);
					// a call in flight at the kill may have been counted and fsynced without its reply arriving
					assertThat(counted).as("units counted after kill -9 and restart, of %d admitted", admitted)
						.isBetween(admitted, admitted + QUOTA_THREADS);
					await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
						.until(() -> limiter.evaluate(RateLimitCheck.of(quota.policy(), "customer-1")).allowed());
					assertThat(context.getBean(RateLimitUsage.class).of("quota", "customer-1").orElseThrow().used())
						.isEqualTo(counted + 1);
					trafficRuns.set(false);
					trafficLoad.join();
					logger.info("named stores: " + admitted + " quota units admitted before kill -9, " + counted
							+ " counted after the restart; " + (trafficAdmitted.get() - trafficAtOutage)
							+ " traffic admissions since the kill, " + trafficAdmitted.get() + " in all");
					assertThat(trafficDenied.get()).as("traffic requests denied").isZero();
					assertThat(trafficCount(traffic)).as("every traffic admission counted in its Redis")
						.isEqualTo(trafficAdmitted.get());
				});
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void aRuleNamingAnUndeclaredStoreFailsStartUpNamingItsProperty() throws Exception {
		try (RedisServerProcess traffic = RedisServerProcess.start()) {
			LettuceConnectionFactory factory = LettuceFactories.standalone(traffic.endpoint());
			try {
				new ApplicationContextRunner()
					.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
							RateLimitAutoConfiguration.class))
					.withBean("redisConnectionFactory", LettuceConnectionFactory.class, () -> factory)
					.withPropertyValues("ratelimit.rules.quota.limit=10", "ratelimit.rules.quota.calendar=day",
							"ratelimit.rules.quota.store=bililng", "ratelimit.stores.billing.url=redis://127.0.0.1:1")
					.run((context) -> assertThat(context).getFailure()
						.rootCause()
						.isInstanceOf(InvalidRateLimitConfigurationException.class)
						.hasMessageContaining("ratelimit.rules.quota.store")
						.hasMessageContaining("bililng")
						.hasMessageContaining("[billing]"));
			}
			finally {
				factory.destroy();
			}
		}
	}

	private static ApplicationContextRunner runner(LettuceConnectionFactory factory, RedisServerProcess billing) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(RateLimitRedisAutoConfiguration.class,
					RateLimitAutoConfiguration.class))
			.withBean("redisConnectionFactory", LettuceConnectionFactory.class, () -> factory)
			.withPropertyValues("ratelimit.redis.timeout=1s", "ratelimit.stores.billing.url=" + billing.uri(),
					"ratelimit.rules.quota.limit=1000000", "ratelimit.rules.quota.calendar=day",
					"ratelimit.rules.quota.store=billing", "ratelimit.rules.quota.on-store-failure=deny",
					"ratelimit.rules.api.algorithm=fixed-window", "ratelimit.rules.api.limit=1000000000",
					"ratelimit.rules.api.period=1d", "ratelimit.rules.api.on-store-failure=allow",
					"ratelimit.deny-cache.enabled=false");
	}

	private static long quotaCount(RedisServerProcess billing) {
		return windowCount(billing, "rl:{quota:customer-1}");
	}

	private static long trafficCount(RedisServerProcess traffic) {
		return windowCount(traffic, "rl:{api:client}");
	}

	/** Reads the count of a fixed (or calendar) window's state, 'windowStart count'. */
	private static long windowCount(RedisServerProcess server, String key) {
		RedisClient client = RedisClient.create(server.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			String state = connection.sync().get(key);
			assertThat(state).as("state of %s", key).isNotNull();
			return Long.parseLong(state.substring(state.indexOf(' ') + 1));
		}
		finally {
			client.shutdown();
		}
	}

}
