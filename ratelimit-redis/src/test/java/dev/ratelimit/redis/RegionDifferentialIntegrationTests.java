package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.region.RegionCounters;
import dev.ratelimit.region.RegionEntries;
import dev.ratelimit.region.RegionReply;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds {@code region.lua} to the Java reference ({@link RegionCounters}): the same random sequences of counts (one to
 * three checks in a call, several regions, random costs, shadow checks, reads), refunds of units counted in the current
 * or an earlier window, charges (settled after the response, no limit check) likewise, and merges of other regions'
 * entries (new values, smaller ones, repeated ones, entries of ended windows, refund entries) at the same explicit
 * times must reply the same merged states, decide the same and leave the same hash of entries.
 * <p>
 * Operations per algorithm: a tenth of {@code ratelimit.differential.operations} (default 100,000); seed:
 * {@code ratelimit.differential.seed}.
 */
@RedisStandaloneTest
class RegionDifferentialIntegrationTests {

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000) / 10;

	private static final String[] REGIONS = { "eu", "us", "ap-south" };

	private static LettuceConnectionFactory factory;

	@BeforeAll
	static void connect(RedisEndpoint endpoint) {
		factory = LettuceFactories.standalone(endpoint);
	}

	@AfterAll
	static void disconnect() {
		factory.destroy();
	}

	@ParameterizedTest
	@EnumSource(names = { "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void regionScriptMatchesReference(Algorithm algorithm) {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		RegionCounters reference = new RegionCounters(clock::micros);
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"rg" + algorithm.ordinal() + "-" + Long.toHexString(seed), Duration.ofSeconds(30), clock::micros,
				new LeaseIds("g"), RedisBatching.OFF);
		lua.loadScripts();
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			RateLimitPolicy policy = RateLimitPolicy.of("p" + i, algorithm, 1 + random.nextInt(40),
					Duration.ofMillis(1 + random.nextInt(5_000)));
			if (algorithm == Algorithm.FIXED_WINDOW && random.nextBoolean()) {
				policy = policy.withSpreadWindows(true);
			}
			policies.add(policy);
		}
		Map<String, Integer> operations = new HashMap<>();
		try (RedisConnection redis = factory.getConnection()) {
			for (int op = 0; op < OPERATIONS; op++) {
				RateLimitPolicy policy = policies.get(random.nextInt(policies.size()));
				long period = policy.periodMicros();
				clock.advanceMicros((random.nextInt(10) == 0) ? random.nextLong(3 * period) : random.nextLong(period / 4 + 1));
				String subject = "s" + random.nextInt(3);
				String region = REGIONS[random.nextInt(REGIONS.length)];
				String context = "seed " + seed + ", operation " + op;
				int kind = random.nextInt(10);
				if (kind < 6) {
					List<RateLimitCheck> checks = new ArrayList<>();
					int n = 1 + ((random.nextInt(4) == 0) ? random.nextInt(3) : 0);
					for (int i = 0; i < n; i++) {
						RateLimitPolicy p = (i == 0) ? policy : policies.get(random.nextInt(policies.size()));
						checks.add(new RateLimitCheck(p, (i == 0) ? subject : "s" + random.nextInt(3),
								random.nextInt((int) p.limit() + 3), random.nextInt(5) == 0));
					}
					boolean commit = random.nextInt(5) != 0;
					RegionReply expected = reference.count(checks, region, commit).join();
					assertThat(lua.count(checks, region, commit).join()).as(context).isEqualTo(expected);
					operations.merge(commit ? "count" : "peek", 1, Integer::sum);
				}
				else if (kind < 8) {
					// a refund, or a charge of a request settled after its response (up to 10 times the limit)
					boolean charge = random.nextBoolean();
					Instant at = Instant.EPOCH.plus(clock.micros() - random.nextLong(3 * period), ChronoUnit.MICROS);
					long units = 1 + random.nextLong(charge ? 10 * policy.limit() : 5);
					List<Consumption> given = List.of(new Consumption(policy, subject, units, at));
					RegionReply expected = charge ? reference.charge(given, region).join()
							: reference.refund(given, region).join();
					assertThat(charge ? lua.charge(given, region).join() : lua.refund(given, region).join())
						.as(context)
						.isEqualTo(expected);
					operations.merge(charge ? "charge" : "refund", 1, Integer::sum);
				}
				else {
					Map<String, Long> fields = new HashMap<>();
					long window = RegionCounters.windowOf(policy, subject, clock.micros());
					for (int i = 1 + random.nextInt(4); i > 0; i--) {
						long w = window - random.nextInt(4) * period;
						String peer = REGIONS[random.nextInt(REGIONS.length)];
						String field = random.nextInt(4) == 0 ? RegionCounters.refundField(peer, w)
								: RegionCounters.field(peer, w);
						fields.put(field, (long) random.nextInt(60));
					}
					List<RegionEntries> entries = List.of(new RegionEntries(policy, subject, fields));
					reference.merge(entries).join();
					lua.merge(entries).join();
					operations.merge("merge", 1, Integer::sum);
				}
				Map<String, Long> stored = new HashMap<>();
				redis.hashCommands()
					.hGetAll((lua.key(policy, subject) + ":g").getBytes(StandardCharsets.UTF_8))
					.forEach((field, value) -> stored.put(new String(field, StandardCharsets.UTF_8),
							Long.parseLong(new String(value, StandardCharsets.UTF_8))));
				assertThat(stored).as(context).isEqualTo(reference.entries(policy, subject));
			}
		}
		finally {
			lua.close();
		}
		assertThat(operations).containsKeys("count", "peek", "refund", "charge", "merge");
	}

}
