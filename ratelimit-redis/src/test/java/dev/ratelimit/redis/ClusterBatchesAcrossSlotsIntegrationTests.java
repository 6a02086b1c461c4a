package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisBinary;
import dev.ratelimit.test.redis.RedisCluster;
import dev.ratelimit.test.redis.RedisClusterTest;
import dev.ratelimit.test.redis.RedisServerProcess;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * In a Redis Cluster, a batch carries the GCRA evaluations of one master whatever their hash slots: one call of
 * {@code gcra.lua} with undeclared keys (decision 140). Its decisions must be the Java reference's, on an explicit
 * clock and on Redis's; a master that refuses the call before it writes (full, no longer serving a key, Redis before 7)
 * gets the batch's requests again one by one, routed by slot, so that every request is still answered as it would be
 * without batching.
 */
@RedisClusterTest
class ClusterBatchesAcrossSlotsIntegrationTests {

	private static final int ROUNDS = Integer.getInteger("ratelimit.differential.operations", 100_000) / 1_000;

	/** Holds a master's replies long enough for the next requests to queue behind the one in flight. */
	private static final long PAUSE_MILLIS = 300;

	/**
	 * Pipelined requests of one thread, one to three rules each (a request of several rules has keys in several slots,
	 * decided by one call per slot behind the lanes of its keys), must be decided as the reference decides them one
	 * after the other: in a master's lanes (across slots) and in the slots' own.
	 */
	@ParameterizedTest(name = "across slots: {0}")
	@ValueSource(booleans = { true, false })
	void batchesMatchTheReferenceAppliedInOrder(boolean acrossSlots, RedisCluster cluster) {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			policies.add(LuaDifferentialIntegrationTests.randomPolicy(random, Algorithm.GCRA, "x" + i));
		}
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("x"));
		LettuceConnectionFactory factory = LettuceFactories.cluster(cluster.endpoint());
		try (RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"across-" + Long.toHexString(seed), Duration.ofSeconds(30), clock::micros, new LeaseIds("x"),
				new RedisBatching(true, 1, 16, 40, acrossSlots))) {
			for (int round = 0; round < ROUNDS; round++) {
				List<String> described = new ArrayList<>();
				List<List<Decision>> expected = new ArrayList<>();
				List<CompletableFuture<List<Decision>>> actual = new ArrayList<>();
				// groups at one time each, pipelined: all but the first of each wait behind the call in flight (of
				// their master, or of their slot: few subjects then, so that requests share slots)
				for (int group = 0; group < 5; group++) {
					clock.advanceMicros(Math.abs(LuaDifferentialIntegrationTests.randomStep(random)));
					for (int i = 1 + random.nextInt(40); i > 0; i--) {
						List<RateLimitCheck> request = randomRequest(random, policies, acrossSlots ? 300 : 12);
						// peeks run ratelimit.lua: a master's lane sends them by slot
						boolean peek = random.nextInt(100) < 10;
						described.add("seed " + seed + ", round " + round + " at " + clock.micros() + " µs"
								+ (peek ? ", peek: " : ": ") + request);
						expected.add(peek ? reference.peek(request) : reference.evaluate(request));
						actual.add(peek ? lua.peekAsync(request) : lua.evaluateAsync(request));
					}
				}
				for (int i = 0; i < actual.size(); i++) {
					List<Decision> decisions = actual.get(i).join();
					if (decisions.size() > 1 && !decisions.stream().allMatch(Decision::allowed)) {
						// denied by one slot's call: the others' report comes from a second call, which may see
						// requests decided after this one (the store's documented behaviour); the checks that denied
						// are exact
						for (int c = 0; c < decisions.size(); c++) {
							if (!expected.get(i).get(c).allowed()) {
								assertThat(decisions.get(c)).as(described.get(i)).isEqualTo(expected.get(i).get(c));
							}
						}
						assertThat(expected.get(i)).as(described.get(i)).anyMatch((decision) -> !decision.allowed());
					}
					else {
						assertThat(decisions).as(described.get(i)).isEqualTo(expected.get(i));
					}
				}
			}
			long[] statistics = lua.batchStatistics();
			assertThat(statistics[1]).as("requests carried by %d calls", statistics[0]).isGreaterThan(statistics[0]);
			assertThat(lua.callsAcrossSlots()).as("calls across slots (seed %d)", seed)
				.isGreaterThan(acrossSlots ? ROUNDS : -1)
				.isLessThan(acrossSlots ? Long.MAX_VALUE : 1);
			assertThat(lua.batchesAcrossSlots()).isEqualTo(acrossSlots);
			assertThat(lua.refusedAcrossSlots()).as("calls across slots a master refused").isZero();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void onRedisClockConcurrentRequestsAcrossSlotsAdmitExactlyEachKeysBurst(RedisCluster cluster) {
		RateLimitPolicy policy = RateLimitPolicy.of("across-burst", Algorithm.GCRA, 1, Duration.ofHours(1))
			.withBurst(40);
		LettuceConnectionFactory factory = LettuceFactories.cluster(cluster.endpoint());
		ExecutorService threads = Executors.newFixedThreadPool(16);
		try (RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"burst-" + Long.toHexString(System.nanoTime()), Duration.ofSeconds(30), null, new LeaseIds("b"),
				RedisBatching.DEFAULT)) {
			SplittableRandom random = new SplittableRandom(LuaDifferentialIntegrationTests.seed());
			List<CompletableFuture<String>> admitted = new ArrayList<>();
			for (int i = 0; i < 6_000; i++) {
				String subject = "s" + random.nextInt(60);
				admitted.add(CompletableFuture.supplyAsync(
						() -> lua.evaluate(List.of(RateLimitCheck.of(policy, subject))).get(0).allowed() ? subject : "",
						threads));
			}
			Map<String, Integer> perSubject = new HashMap<>();
			admitted.stream().map(CompletableFuture::join).filter((s) -> !s.isEmpty())
				.forEach((s) -> perSubject.merge(s, 1, Integer::sum));
			assertThat(perSubject).hasSize(60).allSatisfy((subject, count) -> assertThat(count).as(subject)
				.isEqualTo(40));
			assertThat(lua.callsAcrossSlots()).isPositive();
		}
		finally {
			threads.shutdownNow();
			factory.destroy();
		}
	}

	/**
	 * Threads whose requests of one rule are followed, from the thread that completes them, by requests of three rules
	 * (keys in three slots, so barriers in three lanes) and the other way round: every request is answered, no key
	 * admits more than its burst, and no lane waits on another for ever.
	 */
	@Test
	void requestsOfSeveralSlotsFromManyThreadsAllCompleteWithinEachKeysBurst(RedisCluster cluster) throws Exception {
		List<RateLimitPolicy> policies = List.of(
				RateLimitPolicy.of("many-a", Algorithm.GCRA, 1, Duration.ofHours(1)).withBurst(60),
				RateLimitPolicy.of("many-b", Algorithm.GCRA, 1, Duration.ofHours(1)).withBurst(60),
				RateLimitPolicy.of("many-c", Algorithm.GCRA, 1, Duration.ofHours(1)).withBurst(60));
		LettuceConnectionFactory factory = LettuceFactories.cluster(cluster.endpoint());
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try (RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"many-" + Long.toHexString(System.nanoTime()), Duration.ofSeconds(30), null, new LeaseIds("t"),
				RedisBatching.DEFAULT)) {
			Map<String, AtomicInteger> admitted = new ConcurrentHashMap<>();
			List<CompletableFuture<?>> all = new ArrayList<>();
			for (int t = 0; t < 8; t++) {
				int thread = t;
				all.add(CompletableFuture.runAsync(() -> {
					SplittableRandom random = new SplittableRandom(thread);
					List<CompletableFuture<?>> mine = new ArrayList<>();
					for (int i = 0; i < 300; i++) {
						String subject = "s" + random.nextInt(10);
						List<RateLimitCheck> one = List.of(RateLimitCheck.of(policies.get(random.nextInt(3)), subject));
						List<RateLimitCheck> three = policies.stream().map((p) -> RateLimitCheck.of(p, subject)).toList();
						boolean oneFirst = random.nextBoolean();
						List<RateLimitCheck> first = oneFirst ? one : three;
						List<RateLimitCheck> then = oneFirst ? three : one;
						mine.add(lua.evaluateAsync(first)
							.thenCompose((decisions) -> count(admitted, first, decisions, lua.evaluateAsync(then)))
							.thenAccept((decisions) -> count(admitted, then, decisions, null)));
					}
					mine.forEach(CompletableFuture::join);
				}, threads));
			}
			CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			assertThat(admitted).isNotEmpty().allSatisfy((key, count) -> assertThat(count.get()).as(key)
				.isBetween(1, 60));
		}
		finally {
			threads.shutdownNow();
			factory.destroy();
		}
	}

	/** Counts, per key, the checks of an admitted request; returns {@code next} (or a completed future). */
	private static CompletableFuture<List<Decision>> count(Map<String, AtomicInteger> admitted,
			List<RateLimitCheck> checks, List<Decision> decisions, CompletableFuture<List<Decision>> next) {
		if (decisions.stream().allMatch(Decision::allowed)) {
			for (RateLimitCheck check : checks) {
				admitted.computeIfAbsent(check.policy().name() + ":" + check.subject(),
						(key) -> new AtomicInteger()).incrementAndGet();
			}
		}
		return (next != null) ? next : CompletableFuture.completedFuture(decisions);
	}

	@Test
	void aFullMasterStillAnswersDenialsOfABatchAcrossSlots(RedisCluster cluster) {
		RateLimitPolicy policy = RateLimitPolicy.of("across-full", Algorithm.GCRA, 2, Duration.ofHours(1));
		MutableClock clock = MutableClock.atRealisticEpoch();
		LettuceConnectionFactory factory = LettuceFactories.cluster(cluster.endpoint());
		String prefix = "full-" + Long.toHexString(System.nanoTime());
		RedisServerProcess master = cluster.masters().get(0);
		try (RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), prefix,
				Duration.ofSeconds(30), clock::micros, new LeaseIds("f"), new RedisBatching(true, 1, 64, 256))) {
			List<String> subjects = subjectsOf(cluster, master, lua, policy, 20);
			List<String> exhausted = subjects.subList(0, 10);
			for (String subject : exhausted) {
				lua.evaluate(List.of(RateLimitCheck.of(policy, subject).withCost(2)));
			}
			admin(master, (redis) -> redis.configSet("maxmemory", "1"));
			try {
				pause(master);
				List<CompletableFuture<List<Decision>>> replies = new ArrayList<>();
				for (String subject : subjects) {
					replies.add(lua.evaluateAsync(List.of(RateLimitCheck.of(policy, subject))));
				}
				for (int i = 0; i < subjects.size(); i++) {
					CompletableFuture<List<Decision>> reply = replies.get(i);
					if (i < exhausted.size()) {
						assertThat(reply.join().get(0).allowed()).as("%s is denied, full Redis or not", subjects.get(i))
							.isFalse();
					}
					else {
						assertThatThrownBy(reply::join).as("%s would write", subjects.get(i))
							.isInstanceOf(CompletionException.class)
							.rootCause()
							.hasMessageContaining("OOM command not allowed");
					}
				}
			}
			finally {
				admin(master, (redis) -> redis.configSet("maxmemory", "0"));
			}
			assertThat(lua.refusedAcrossSlots()).as("the batch behind the first went across slots, refused whole")
				.isPositive();
			assertThat(lua.batchesAcrossSlots()).isTrue();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void aBatchSentToAMasterThatDoesNotServeItsKeysIsSentAgainBySlot(RedisCluster cluster) {
		RateLimitPolicy policy = RateLimitPolicy.of("across-moved", Algorithm.GCRA, 5, Duration.ofHours(1));
		MutableClock clock = MutableClock.atRealisticEpoch();
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000, clock, new LeaseIds("m"));
		RedisServerProcess owner = cluster.masters().get(1);
		RedisServerProcess other = cluster.masters().get(2);
		RedisClusterClient client = RedisClusterClient.create(cluster.seedUris().get(0));
		try (StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
				RedisRateLimitStore keys = new RedisRateLimitStore(RedisStoreConnection.of(client),
						"moved-" + Long.toHexString(System.nanoTime()), Duration.ofSeconds(30))) {
			ScriptsInUse scripts = new ScriptsInUse();
			AtomicBoolean acrossSlots = new AtomicBoolean(true);
			// the lane of a master whose slots moved to another since (a stale topology): its batch reaches the other
			BatchLane lane = new BatchLane(scripts, () -> new IssuedCommands(connection.async(), false),
					new RedisBatching(true, 1, 64, 256), new BatchLane.Master(acrossSlots, () -> new IssuedCommands(
							connection.getConnection(other.host(), other.port()).async(), false)));
			List<String> subjects = subjectsOf(cluster, owner, keys, policy, 12);
			pause(owner);
			List<List<Decision>> expected = new ArrayList<>();
			List<BatchLane.Request> requests = new ArrayList<>();
			for (String subject : subjects) {
				List<RateLimitCheck> checks = List.of(RateLimitCheck.of(policy, subject).withCost(2));
				expected.add(reference.evaluate(checks));
				BatchLane.Request request = new BatchLane.Request(new IssuedCommands(connection.async(), false),
						new byte[][] { keys.key(policy, subject).getBytes(StandardCharsets.UTF_8) },
						scripts.general().checkArguments(checks, "", clock.micros()), checks,
						RateLimitScript.Mode.EVALUATE, "", clock.micros(), true, new CompletableFuture<>());
				requests.add(request);
				lane.submit(request);
			}
			for (int i = 0; i < requests.size(); i++) {
				assertThat(requests.get(i).reply().join().decisions()).as(subjects.get(i)).isEqualTo(expected.get(i));
			}
			assertThat(lane.callsAcrossSlots()).as("one batch went across slots, to the wrong master").isEqualTo(1);
			assertThat(lane.refusedAcrossSlots()).as("which refused it").isEqualTo(1);
			assertThat(acrossSlots).as("the Cluster still runs such calls").isTrue();
		}
		finally {
			client.shutdown();
		}
	}

	@Test
	void aClusterOfRedisBeforeSevenKeepsItsBatchesWithinSlots() {
		assumeTrue(System.getProperty("os.name").startsWith("Linux") && "amd64".equals(System.getProperty("os.arch")),
				"the embedded Redis 6.2 runs on Linux x86_64");
		RateLimitPolicy policy = RateLimitPolicy.of("across-old", Algorithm.GCRA, 3, Duration.ofHours(1));
		MutableClock clock = MutableClock.atRealisticEpoch();
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000, clock, new LeaseIds("o"));
		try (RedisCluster old = RedisCluster.start(RedisBinary.embedded(), 3, 0)) {
			LettuceConnectionFactory factory = LettuceFactories.cluster(old.endpoint());
			try (RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "old",
					Duration.ofSeconds(30), clock::micros, new LeaseIds("o"), new RedisBatching(true, 1, 64, 256))) {
				List<String> subjects = subjectsOf(old, old.masters().get(0), lua, policy, 30);
				for (int round = 0; round < 3; round++) {
					clock.advanceMicros(1_000);
					pause(old.masters().get(0));
					List<List<Decision>> expected = new ArrayList<>();
					List<CompletableFuture<List<Decision>>> actual = new ArrayList<>();
					for (String subject : subjects) {
						List<RateLimitCheck> request = List.of(RateLimitCheck.of(policy, subject));
						expected.add(reference.evaluate(request));
						actual.add(lua.evaluateAsync(request));
					}
					for (int i = 0; i < actual.size(); i++) {
						assertThat(actual.get(i).join()).as("round %d, %s", round, subjects.get(i))
							.isEqualTo(expected.get(i));
					}
				}
				assertThat(lua.callsAcrossSlots()).as("tried once: Redis 6.2 cannot parse the shebang").isEqualTo(1);
				assertThat(lua.refusedAcrossSlots()).isEqualTo(1);
				assertThat(lua.batchesAcrossSlots()).isFalse();
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * One check of one rule at any cost, or (one in ten) inspections of two or three rules (keys in several slots):
	 * those must see exactly the requests before them. A request of several slots that consumed in one slot while
	 * another denied is given back by a second call, between which the requests after it may see the consumption
	 * (the store's documented behaviour), which no reference applying requests one by one can reproduce.
	 */
	private static List<RateLimitCheck> randomRequest(SplittableRandom random, List<RateLimitPolicy> policies,
			int subjects) {
		String subject = "u" + random.nextInt(subjects);
		int rules = (random.nextInt(10) == 0) ? 2 + random.nextInt(2) : 1;
		List<RateLimitCheck> request = new ArrayList<>();
		int first = random.nextInt(policies.size());
		for (int r = 0; r < rules; r++) {
			RateLimitPolicy policy = policies.get((first + r) % policies.size());
			long cost = (rules > 1 || random.nextInt(10) == 0) ? 0 : random.nextLong(1, 3);
			request.add(new RateLimitCheck(policy, subject, cost, random.nextInt(10) == 0));
		}
		return request;
	}

	/** Subjects whose keys lie on the given master, each in a slot of its own. */
	private static List<String> subjectsOf(RedisCluster cluster, RedisServerProcess master, RedisRateLimitStore store,
			RateLimitPolicy policy, int count) {
		List<String> subjects = new ArrayList<>();
		List<Integer> slots = new ArrayList<>();
		for (int i = 0; subjects.size() < count; i++) {
			String key = store.key(policy, "m" + i);
			int slot = SlotHash.getSlot(key);
			if (cluster.masterForKey(key).equals(master) && !slots.contains(slot)) {
				subjects.add("m" + i);
				slots.add(slot);
			}
		}
		return subjects;
	}

	/** Pauses a master's clients, so that the first request stays in flight while the next ones queue behind it. */
	private static void pause(RedisServerProcess master) {
		admin(master, (redis) -> redis.clientPause(PAUSE_MILLIS));
	}

	private static void admin(RedisServerProcess node, Consumer<RedisCommands<String, String>> command) {
		RedisClient client = RedisClient.create(node.uri());
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			command.accept(connection.sync());
		}
		finally {
			client.shutdown();
		}
	}

}
