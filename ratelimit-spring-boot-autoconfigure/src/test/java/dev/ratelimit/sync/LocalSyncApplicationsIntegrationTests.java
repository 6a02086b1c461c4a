package dev.ratelimit.sync;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.test.Hammer;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29's acceptance run through the starter: four application contexts share one Redis, each with the same two
 * GCRA rules of 1,000 per second from properties, one {@code sync: local}, one exact; sixteen threads per context
 * call the application's {@link RateLimiter} on one key of each rule for 10 s. The local rule admits no more than the
 * exact limit over the run plus the bound of docs/consistency.md ({@code 4 x 100 + 1000/s x 100 ms}) and at least 95%
 * of what the exact rule admits in the same conditions.
 */
@RedisStandaloneTest
class LocalSyncApplicationsIntegrationTests {

	private static final int CONTEXTS = 4;

	private static final int THREADS = 16;

	private static final Duration RUN = Duration.ofSeconds(Long.getLong("ratelimit.sync.run-seconds", 10));

	private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

	@AfterEach
	void close() {
		this.contexts.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void fourApplicationsOnOneHotKeyStayWithinTheBoundAndNearTheExactMode(RedisEndpoint redis) throws Exception {
		for (int i = 0; i < CONTEXTS; i++) {
			this.contexts.add(new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
				.properties("spring.data.redis.url=" + redis.uri(), "ratelimit.rules.hot-local.limit=1000",
						"ratelimit.rules.hot-local.period=1s", "ratelimit.rules.hot-local.sync=local",
						"ratelimit.rules.hot-exact.limit=1000", "ratelimit.rules.hot-exact.period=1s")
				.run());
		}
		String subject = "app-" + UUID.randomUUID();
		Hammer.Run exact = hammer("hot-exact", subject);
		Hammer.Run local = hammer("hot-local", subject);
		RateLimitRule rule = this.contexts.get(0).getBean(RateLimitRules.class).get("hot-local").orElseThrow();
		SyncSettings sync = rule.sync();
		assertThat(sync).isEqualTo(new SyncSettings(Duration.ofMillis(100), 100));
		long perSecond = rule.policy().limit();
		long exactLimit = rule.policy().capacity()
				+ -Math.floorDiv(-Math.max(exact.nanos(), local.nanos()) * perSecond, TimeUnit.SECONDS.toNanos(1));
		long bound = CONTEXTS * sync.threshold() + sync.interval().toNanos() * perSecond / TimeUnit.SECONDS.toNanos(1);
		System.out.printf("contexts: exact %d admitted of %d decisions; local %d admitted of %d decisions; exact limit"
				+ " %d, bound %d (over-admission %d, %.2f%% of the exact mode)%n", exact.admitted(), exact.decisions(),
				local.admitted(), local.decisions(), exactLimit, bound, local.admitted() - exactLimit,
				100.0 * local.admitted() / exact.admitted());
		assertThat(local.admitted()).as("local: at most the exact limit plus the bound")
			.isLessThanOrEqualTo(exactLimit + bound);
		assertThat(local.admitted()).as("local: at least 95% of the exact mode")
			.isGreaterThanOrEqualTo(exact.admitted() * 95 / 100);
	}

	private Hammer.Run hammer(String ruleName, String subject) throws Exception {
		return Hammer.run(CONTEXTS * THREADS, RUN, (i) -> {
			ConfigurableApplicationContext context = this.contexts.get(i % CONTEXTS);
			RateLimiter limiter = context.getBean(RateLimiter.class);
			RateLimitRule rule = context.getBean(RateLimitRules.class).get(ruleName).orElseThrow();
			return () -> limiter.evaluate(rule.check(rule.policy(), subject, 1)).allowed();
		});
	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}
