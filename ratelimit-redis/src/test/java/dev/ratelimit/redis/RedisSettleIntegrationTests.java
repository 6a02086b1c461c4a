package dev.ratelimit.redis;

import java.time.Duration;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the store contract cannot see through a driven clock: on Redis's own clock, a key charged into debt is kept
 * (its TTL) at least until it has recovered; and a full Redis refuses a settlement as a whole before it writes
 * anything, as it refuses a refund.
 */
@RedisStandaloneTest
class RedisSettleIntegrationTests {

	@Test
	void aKeyInDebtIsKeptUntilItHasRecovered(RedisEndpoint endpoint) {
		List<RateLimitPolicy> policies = List.of(
				RateLimitPolicy.of("ttl-gcra", Algorithm.GCRA, 5, Duration.ofHours(1)),
				RateLimitPolicy.of("ttl-bucket", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1)),
				RateLimitPolicy.of("ttl-leaky", Algorithm.LEAKY_BUCKET, 5, Duration.ofHours(1)),
				RateLimitPolicy.of("ttl-window", Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1)),
				RateLimitPolicy.of("ttl-counter", Algorithm.SLIDING_WINDOW_COUNTER, 5, Duration.ofHours(1)),
				RateLimitPolicy.of("ttl-warm", Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1))
					.withWarmUp(Duration.ofMinutes(10), 3),
				RateLimitPolicy.calendar("ttl-day", 5,
						CalendarPeriod.of(CalendarPeriod.Unit.DAY, ZoneId.of("Europe/Berlin"))));
		LettuceConnectionFactory factory = LettuceFactories.standalone(endpoint);
		RedisClient client = RedisClient.create(endpoint.uri());
		try (RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl-settle-ttl",
				Duration.ofSeconds(5)); StatefulRedisConnection<String, String> connection = client.connect()) {
			String subject = "s-" + System.nanoTime();
			for (RateLimitPolicy policy : policies) {
				RateLimitCheck check = RateLimitCheck.of(policy, subject, 1);
				Consumption reserved = new Verdict(List.of(check), store.evaluate(List.of(check))).consumptions().get(0);
				for (boolean stateless : new boolean[] { false, true }) {
					if (stateless) {
						// a charge of a key that has no state any more creates it, with the same TTL rule
						store.reset(policy, subject);
					}
					assertKeptUntilRecovered(store, connection, policy, subject, reserved, stateless);
				}
			}
		}
		finally {
			client.shutdown();
			factory.destroy();
		}
	}

	private static void assertKeptUntilRecovered(RedisRateLimitStore store,
			StatefulRedisConnection<String, String> connection, RateLimitPolicy policy, String subject,
			Consumption reserved, boolean stateless) {
		Decision settled = store.settle(List.of(new Settlement(reserved, 100))).get(0);
		String name = policy.name() + (stateless ? " (no state before)" : "");
		assertThat(settled.allowed()).as(name + " in debt").isFalse();
		long ttl = connection.sync().pttl(store.key(policy, subject));
		// (less the time between the settlement and the PTTL, well under a second; a window's debt belongs to the
		// admission's window, so near the end of the hour the recovery, and the TTL, may be seconds away)
		assertThat(ttl).as(name + ": TTL (ms) against the recovery " + settled.retryAfter() + " and the full reset "
				+ settled.resetAfter())
			.isPositive()
			.isGreaterThanOrEqualTo(settled.resetAfter().toMillis() - 1_000)
			.isGreaterThanOrEqualTo(settled.retryAfter().toMillis() - 1_000);
	}

	@Test
	void aFullRedisRefusesASettlementBeforeItWritesAnything() {
		try (RedisServerProcess redis = RedisServerProcess.start("--maxmemory-policy", "noeviction")) {
			LettuceConnectionFactory factory = LettuceFactories.standalone(redis.endpoint());
			RedisClient client = RedisClient.create(redis.uri());
			try (RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl-full",
					Duration.ofSeconds(5)); StatefulRedisConnection<String, String> connection = client
						.connect(StringCodec.UTF8)) {
				RedisCommands<String, String> commands = connection.sync();
				RateLimitPolicy gcra = RateLimitPolicy.of("full-gcra", Algorithm.GCRA, 10, Duration.ofHours(1));
				RateLimitPolicy window = RateLimitPolicy.of("full-window", Algorithm.FIXED_WINDOW, 10,
						Duration.ofHours(1));
				List<RateLimitCheck> request = List.of(RateLimitCheck.of(gcra, "s", 4), RateLimitCheck.of(window, "s", 4));
				List<Consumption> reserved = new Verdict(request, store.evaluate(request)).consumptions();
				String gcraBefore = commands.get(store.key(gcra, "s"));
				String windowBefore = commands.get(store.key(window, "s"));
				String chunk = "x".repeat(64 * 1024);
				for (int i = 0; i < 16; i++) {
					commands.set("filler:" + i, chunk);
				}
				long used = Long.parseLong(commands.info("memory").lines()
					.filter((line) -> line.startsWith("used_memory:"))
					.findFirst()
					.orElseThrow()
					.substring("used_memory:".length())
					.trim());
				commands.configSet("maxmemory", String.valueOf(used - 512 * 1024));
				List<Settlement> charging = List.of(new Settlement(reserved.get(0), 9), new Settlement(reserved.get(1), 1));
				assertThatExceptionOfType(RedisOutOfMemoryException.class).isThrownBy(() -> store.settle(charging));
				List<Settlement> givingBack = List.of(new Settlement(reserved.get(0), 1),
						new Settlement(reserved.get(1), 1));
				assertThatExceptionOfType(RedisOutOfMemoryException.class).isThrownBy(() -> store.settle(givingBack));
				assertThat(commands.get(store.key(gcra, "s"))).as("GCRA state untouched").isEqualTo(gcraBefore);
				assertThat(commands.get(store.key(window, "s"))).as("window state untouched").isEqualTo(windowBefore);
				commands.configSet("maxmemory", "0");
				assertThat(store.settle(charging)).extracting(Decision::remaining).containsExactly(1L, 9L);
			}
			finally {
				client.shutdown();
				factory.destroy();
			}
		}
	}

}
