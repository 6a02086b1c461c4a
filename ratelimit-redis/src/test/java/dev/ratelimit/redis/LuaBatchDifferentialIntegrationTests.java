package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Binds the scripts' batch entry to the Java reference: random batches (1 to 40 requests of one to three checks of
 * every algorithm, evaluations and peeks, shadows and reservations, few subjects so that the requests of a batch share
 * keys) run in one script call each at one time must decide exactly what the reference decides applying the same
 * requests one after the other in batch order. All-GCRA batches run {@code gcra.lua}'s batch entry. A second test
 * drives the store's natural batching (one lane, so that requests pile up behind the call in flight) and checks that
 * batches of several requests did form.
 * <p>
 * Batches per test: system property {@code ratelimit.differential.operations} / 20 (default 5,000).
 */
@RedisStandaloneTest
class LuaBatchDifferentialIntegrationTests {

	private static final int BATCHES = Integer.getInteger("ratelimit.differential.operations", 100_000) / 20;

	private static LettuceConnectionFactory factory;

	private static RedisClient client;

	private static StatefulRedisConnection<byte[], byte[]> connection;

	@BeforeAll
	static void connect(RedisEndpoint endpoint) {
		factory = LettuceFactories.standalone(endpoint);
		client = RedisClient.create(endpoint.uri());
		connection = client.connect(ByteArrayCodec.INSTANCE);
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
		factory.destroy();
	}

	@Test
	void batchesOfEveryAlgorithmMatchReferenceAppliedInBatchOrder() {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = everyAlgorithm(random, "b");
		policies.addAll(everyAlgorithm(random, "c"));
		runBatches(random, seed, "batch-" + Long.toHexString(seed), policies);
	}

	@Test
	void gcraBatchesMatchReferenceAppliedInBatchOrder() {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			policies.add(LuaDifferentialIntegrationTests.randomPolicy(random, Algorithm.GCRA, "g" + i));
		}
		runBatches(random, seed, "bgcra-" + Long.toHexString(seed), policies);
	}

	/**
	 * {@code gcra.lua} as a Redis Cluster master's batch across hash slots runs it (decision 140: keys after the
	 * arguments, read one {@code GET} each, under a script flag), on one Redis 7: random batches of GCRA evaluations
	 * (one to three checks, shadows, few subjects so that requests share keys, and many so that they do not) must be
	 * decided as the reference decides them one after the other.
	 */
	@Test
	void gcraBatchesAcrossSlotsMatchReferenceAppliedInBatchOrder() {
		String version = connection.sync().info("server").lines()
			.filter((line) -> line.startsWith("redis_version:")).findFirst().orElse("redis_version:0").substring(14);
		assumeTrue(Integer.parseInt(version.split("\\.")[0]) >= 7, "script flags need Redis 7, this is " + version);
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			policies.add(LuaDifferentialIntegrationTests.randomPolicy(random, Algorithm.GCRA, "a" + i));
		}
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		Batches batches = new Batches(new IssuedCommands(connection.async(), false),
				new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "across-" + Long.toHexString(seed),
						Duration.ofSeconds(30)), new LeaseIds("d"));
		for (int b = 0; b < BATCHES / 2; b++) {
			clock.advanceMicros(Math.abs(LuaDifferentialIntegrationTests.randomStep(random)));
			int subjects = random.nextBoolean() ? 2 : 1_000;
			List<List<RateLimitCheck>> requests = new ArrayList<>();
			List<List<Decision>> expected = new ArrayList<>();
			for (int q = 1 + random.nextInt(random.nextInt(4) == 0 ? 40 : 6); q > 0; q--) {
				List<RateLimitCheck> request = new ArrayList<>();
				int first = random.nextInt(policies.size());
				String subject = "s" + random.nextInt(subjects);
				for (int c = 1 + random.nextInt(3); c > 0; c--) {
					RateLimitPolicy policy = policies.get((first + c) % policies.size());
					request.add(LuaDifferentialIntegrationTests.randomCheck(random, policy, subject,
							random.nextInt(10) == 0));
				}
				requests.add(request);
				expected.add(reference.evaluate(request));
			}
			List<RateLimitScript.Reply> replies = batches.runAcrossSlots(requests, clock.micros());
			for (int q = 0; q < requests.size(); q++) {
				assertThat(replies.get(q).decisions())
					.as("seed %d, batch %d at %d µs, request %d: %s", seed, b, clock.micros(), q, requests.get(q))
					.isEqualTo(expected.get(q));
			}
		}
	}

	@Test
	void naturalBatchesOfTheStoreMatchReference() {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = everyAlgorithm(random, "n");
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "nat-" + Long.toHexString(seed),
				Duration.ofSeconds(30), clock::micros, new LeaseIds("d"), new RedisBatching(true, 1, 16, 40));
		lua.loadScripts();
		for (int round = 0; round < BATCHES / 10; round++) {
			List<String> described = new ArrayList<>();
			List<List<Decision>> expected = new ArrayList<>();
			List<CompletableFuture<List<Decision>>> actual = new ArrayList<>();
			// groups at one time each, pipelined: all but the first of each wait behind the call in flight
			for (int group = 0; group < 5; group++) {
				clock.advanceMicros(Math.abs(LuaDifferentialIntegrationTests.randomStep(random)));
				for (int i = 1 + random.nextInt(30); i > 0; i--) {
					List<RateLimitCheck> request = LuaDifferentialIntegrationTests.randomWaitingRequest(random, policies);
					boolean peek = random.nextInt(100) < 15;
					described.add("seed " + seed + ", round " + round + " at " + clock.micros() + " µs"
							+ (peek ? ", peek: " : ": ") + request);
					expected.add(peek ? reference.peek(request) : reference.evaluate(request));
					actual.add(peek ? lua.peekAsync(request) : lua.evaluateAsync(request));
				}
			}
			for (int i = 0; i < actual.size(); i++) {
				assertThat(actual.get(i).join()).as(described.get(i)).isEqualTo(expected.get(i));
			}
		}
		long[] statistics = lua.batchStatistics();
		assertThat(statistics[1]).as("requests carried by %d calls", statistics[0]).isGreaterThan(statistics[0]);
	}

	private static void runBatches(SplittableRandom random, long seed, String prefix, List<RateLimitPolicy> policies) {
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		Batches batches = new Batches(new IssuedCommands(connection.async(), false),
				new RedisRateLimitStore(SpringDataRedisConnection.of(factory), prefix, Duration.ofSeconds(30)), new LeaseIds("d"));
		int largest = 0;
		int sharedKeys = 0;
		// calls of several checks whose keys are all distinct: gcra.lua then keeps no table of what it wrote
		int distinctCalls = 0;
		for (int b = 0; b < BATCHES; b++) {
			clock.advanceMicros(Math.abs(LuaDifferentialIntegrationTests.randomStep(random)));
			int size = (random.nextInt(4) == 0) ? 1 + random.nextInt(40) : 1 + random.nextInt(6);
			List<List<RateLimitCheck>> requests = new ArrayList<>();
			List<Boolean> peeks = new ArrayList<>();
			List<List<Decision>> expected = new ArrayList<>();
			Set<String> seenKeys = new HashSet<>();
			int shared = sharedKeys;
			int checks = 0;
			for (int q = 0; q < size; q++) {
				List<RateLimitCheck> request = LuaDifferentialIntegrationTests.randomWaitingRequest(random, policies);
				boolean peek = random.nextInt(100) < 15;
				for (RateLimitCheck check : request) {
					sharedKeys += seenKeys.add(check.policy().name() + ":" + check.subject()) ? 0 : 1;
				}
				checks += request.size();
				requests.add(request);
				peeks.add(peek);
				expected.add(peek ? reference.peek(request) : reference.evaluate(request));
			}
			largest = Math.max(largest, size);
			distinctCalls += (checks > 1 && sharedKeys == shared) ? 1 : 0;
			List<RateLimitScript.Reply> replies = batches.run(requests, peeks, clock.micros());
			for (int q = 0; q < size; q++) {
				assertThat(replies.get(q).decisions())
					.as("seed %d, batch %d of %d at %d µs, request %d%s: %s", seed, b, size, clock.micros(), q,
							peeks.get(q) ? " (peek)" : "", requests.get(q))
					.isEqualTo(expected.get(q));
				assertThat(replies.get(q).nowMicros()).as("one time per call").isEqualTo(clock.micros());
			}
		}
		assertThat(largest).isGreaterThan(30);
		assertThat(sharedKeys).as("requests sharing keys inside a batch").isGreaterThan(BATCHES);
		assertThat(distinctCalls).as("batches of several checks, every key distinct").isGreaterThan(BATCHES / 10);
	}

	private static List<RateLimitPolicy> everyAlgorithm(SplittableRandom random, String prefix) {
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			policies.add(LuaDifferentialIntegrationTests.randomPolicy(random, algorithm, prefix + algorithm.scriptId()));
		}
		return policies;
	}

}
