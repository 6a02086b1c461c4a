package dev.ratelimit.redis;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code gcra.lua} on Redis's own clock (decision 136), where the differential tests' explicit times cannot take it:
 * there every write is a {@code SET ... PX} of an hour, here a TAT moved within its second is changed in place
 * ({@code INCRBY}) and the key's expiry is left, and a TAT moved into another second is {@code SET} with the expiry at
 * the end of that second. Each operation (evaluations through {@code gcra.lua}, and the {@code ratelimit.lua} writers
 * of GCRA keys: refunds, settlements, reservations) runs against Redis first; the Java reference then runs at the time
 * Redis decided at ({@link Decision#decidedAt()}) and must answer the same. After each, every key of the test must
 * expire no earlier than its TAT: what the in-place writes rely on.
 */
@RedisStandaloneTest
class GcraRedisClockIntegrationTests {

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000) / 10;

	/** Redis's time, each key's TAT and its absolute expiry, in one call. */
	private static final String EXPIRIES = """
			local t = redis.call('TIME')
			local reply = { t[1] * 1000000 + t[2] }
			for i = 1, #KEYS do
			  reply[2 * i] = tonumber(redis.call('GET', KEYS[i]) or -1)
			  reply[2 * i + 1] = redis.call('PTTL', KEYS[i])
			end
			return reply
			""";

	private static RedisFixture fixture;

	private static RedisCommands<String, String> redis;

	@BeforeAll
	static void connect(RedisEndpoint endpoint) {
		fixture = new RedisFixture(endpoint);
		redis = fixture.redis();
	}

	@AfterAll
	static void disconnect() {
		fixture.close();
	}

	@Test
	void onRedisClockTheScriptsMatchTheReferenceAndNoKeyExpiresBeforeItsTat() {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		// intervals from 1 ms to 200 ms, so that TATs stay within their second and leave it, both often
		List<RateLimitPolicy> policies = List.of(
				RateLimitPolicy.of("clock-a", Algorithm.GCRA, 1_000, Duration.ofSeconds(1)).withBurst(20),
				RateLimitPolicy.of("clock-b", Algorithm.GCRA, 50, Duration.ofSeconds(1)).withBurst(5),
				RateLimitPolicy.of("clock-c", Algorithm.GCRA, 5, Duration.ofSeconds(1)),
				RateLimitPolicy.of("clock-d", Algorithm.GCRA, 3, Duration.ofMillis(100)).withBurst(3));
		List<String> subjects = List.of("s0", "s1", "s2");
		String prefix = "clock-" + Long.toHexString(seed);
		RedisRateLimitStore lua = new RedisRateLimitStore(fixture.storeConnection(), prefix,
				Duration.ofSeconds(30), null, new LeaseIds("c"), RedisBatching.OFF);
		lua.loadScripts();
		MutableClock clock = MutableClock.atRealisticEpoch();
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("c"));
		List<String> keys = new ArrayList<>();
		for (RateLimitPolicy policy : policies) {
			for (String subject : subjects) {
				keys.add(lua.key(policy, subject));
			}
		}
		Map<String, Long> before = commandCalls();
		Map<String, Integer> seen = new TreeMap<>();
		List<Consumption> consumptions = new ArrayList<>();
		for (int done = 0; done < OPERATIONS; done++) {
			String operation = "seed " + seed + ", operation " + done;
			int kind = random.nextInt(100);
			if (kind < 6 && !consumptions.isEmpty()) {
				List<Consumption> refunded = List.of(consumptions.remove(random.nextInt(consumptions.size())));
				List<Decision> actual = lua.refund(refunded);
				at(clock, actual);
				assertThat(actual).as("%s: refund %s", operation, refunded).isEqualTo(reference.refund(refunded));
				seen.merge("refund", 1, Integer::sum);
			}
			else if (kind < 12 && !consumptions.isEmpty()) {
				Consumption settled = consumptions.remove(random.nextInt(consumptions.size()));
				List<Settlement> settlement = List.of(new Settlement(settled, random.nextLong(0, 4)));
				List<Decision> actual = lua.settle(settlement);
				at(clock, actual);
				assertThat(actual).as("%s: settle %s", operation, settlement).isEqualTo(reference.settle(settlement));
				seen.merge("settle", 1, Integer::sum);
			}
			else {
				// one to three rules of the four, each a GCRA check (one in ten a shadow, one in ten reserving up to
				// 50 ms, which ratelimit.lua decides), one in ten an inspection (cost 0)
				List<RateLimitPolicy> shuffled = new ArrayList<>(policies);
				Collections.shuffle(shuffled, new Random(random.nextLong()));
				String subject = subjects.get(random.nextInt(subjects.size()));
				List<RateLimitCheck> request = new ArrayList<>();
				for (RateLimitPolicy policy : shuffled.subList(0, 1 + random.nextInt(3))) {
					long cost = (random.nextInt(10) == 0) ? 0 : random.nextLong(1, 3);
					RateLimitCheck check = new RateLimitCheck(policy, subject, cost, random.nextInt(10) == 0);
					request.add((random.nextInt(10) == 0) ? check.withMaxWait(Duration.ofMillis(50)) : check);
				}
				List<Decision> actual = lua.evaluate(request);
				at(clock, actual);
				List<Decision> expected = reference.evaluate(request);
				assertThat(actual).as("%s: %s", operation, request).isEqualTo(expected);
				Verdict verdict = new Verdict(request, expected);
				consumptions.addAll(verdict.consumptions());
				while (consumptions.size() > 32) {
					consumptions.remove(0);
				}
				seen.merge(verdict.allowed() ? "admitted" : "denied", 1, Integer::sum);
			}
			assertNoKeyExpiresBeforeItsTat(keys, operation);
		}
		Map<String, Long> after = commandCalls();
		long incrs = after.getOrDefault("incrby", 0L) - before.getOrDefault("incrby", 0L);
		long sets = after.getOrDefault("set", 0L) - before.getOrDefault("set", 0L);
		assertThat(seen).as("seed %d", seed).containsKeys("admitted", "denied", "refund", "settle");
		assertThat(incrs).as("TATs changed in place (seed %d)", seed).isGreaterThan(OPERATIONS / 50);
		assertThat(sets).as("TATs moved into another second (seed %d)", seed).isGreaterThan(OPERATIONS / 100);
	}

	@Test
	void concurrentRequestsOnOneKeyAdmitExactlyTheBurstWhateverWritesInPlace() throws Exception {
		RateLimitPolicy policy = RateLimitPolicy.of("clock-burst", Algorithm.GCRA, 1, Duration.ofHours(1))
			.withBurst(500);
		RedisRateLimitStore lua = new RedisRateLimitStore(fixture.storeConnection(),
				"burst-" + Long.toHexString(System.nanoTime()), Duration.ofSeconds(30), null, new LeaseIds("c"),
				RedisBatching.DEFAULT);
		lua.loadScripts();
		ExecutorService threads = Executors.newFixedThreadPool(16);
		try {
			List<CompletableFuture<List<Decision>>> decisions = new ArrayList<>();
			for (int i = 0; i < 2_000; i++) {
				decisions.add(CompletableFuture
					.supplyAsync(() -> lua.evaluate(List.of(RateLimitCheck.of(policy, "hot"))), threads));
			}
			long admitted = decisions.stream().map(CompletableFuture::join).filter((d) -> d.get(0).allowed()).count();
			assertThat(admitted).isEqualTo(500);
		}
		finally {
			threads.shutdownNow();
		}
		String key = lua.key(policy, "hot");
		assertNoKeyExpiresBeforeItsTat(List.of(key), "after the burst");
	}

	private static void at(MutableClock clock, List<Decision> decisions) {
		Instant decidedAt = decisions.get(0).decidedAt();
		assertThat(decidedAt).as("Redis's time").isNotNull();
		long micros = decidedAt.getEpochSecond() * 1_000_000L + decidedAt.getNano() / 1_000;
		clock.advanceMicros(micros - clock.micros());
	}

	private static void assertNoKeyExpiresBeforeItsTat(List<String> keys, String operation) {
		List<Long> reply = redis.eval(EXPIRIES, ScriptOutputType.MULTI, keys.toArray(String[]::new));
		long nowMillis = reply.get(0) / 1_000;
		for (int i = 0; i < keys.size(); i++) {
			long tat = reply.get(2 * i + 1);
			long ttl = reply.get(2 * i + 2);
			if (tat < 0) {
				continue;
			}
			// -1 would be no expiry; 0 is one that falls within the millisecond
			assertThat(ttl).as("%s: %s has an expiry", operation, keys.get(i)).isNotNegative();
			// PTTL counts from Redis's millisecond clock, TIME from its microsecond one: allow a millisecond
			assertThat((nowMillis + ttl + 1) * 1_000).as("%s: %s expires (µs) no earlier than its TAT", operation,
					keys.get(i)).isGreaterThanOrEqualTo(tat);
		}
	}

	private static Map<String, Long> commandCalls() {
		Map<String, Long> calls = new TreeMap<>();
		for (String line : redis.info("commandstats").split("\r?\n")) {
			if (line.startsWith("cmdstat_")) {
				String name = line.substring("cmdstat_".length(), line.indexOf(':'));
				String count = line.substring(line.indexOf("calls=") + 6, line.indexOf(','));
				calls.put(name, Long.parseLong(count));
			}
		}
		return calls;
	}

}
