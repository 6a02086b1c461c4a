package dev.ratelimit.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the Redis store leaves in Redis, read back from Redis itself: nothing written by a denied request, a TTL on
 * every key, bounded key length. These tests run on Redis's own clock ({@code TIME}), as in production.
 */
@RedisStandaloneTest
class RedisStoreStateIntegrationTests {

	private static LettuceConnectionFactory factory;

	private static RedisClient client;

	private static StatefulRedisConnection<byte[], byte[]> connection;

	private static RedisCommands<byte[], byte[]> redis;

	private final String prefix = "st" + UUID.randomUUID().toString().substring(0, 8);

	private final RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), this.prefix, Duration.ofSeconds(5));

	@BeforeAll
	static void connect(RedisEndpoint endpoint) {
		factory = LettuceFactories.standalone(endpoint);
		client = RedisClient.create(endpoint.uri());
		connection = client.connect(ByteArrayCodec.INSTANCE);
		redis = connection.sync();
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
		factory.destroy();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void requestDeniedBySecondCheckLeavesFirstCheckStateByteForByteUnchanged(Algorithm algorithm) {
		RateLimitPolicy first = RateLimitPolicy.of("first", algorithm, 10, Duration.ofMinutes(10));
		RateLimitPolicy second = RateLimitPolicy.of("second", Algorithm.GCRA, 1, Duration.ofMinutes(10));
		String subject = "user-42";
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(first, subject, 2), RateLimitCheck.of(second, subject));
		assertThat(this.store.evaluate(request)).allMatch(Decision::allowed);
		byte[] key = key(first, subject);
		byte[] before = redis.dump(key);
		long ttlBefore = redis.pttl(key);
		assertThat(before).isNotNull();

		List<Decision> denied = this.store.evaluate(request);

		assertThat(denied.get(1).allowed()).isFalse();
		assertThat(redis.dump(key)).isEqualTo(before);
		long ttlAfter = redis.pttl(key);
		assertThat(ttlAfter).as("TTL not rewritten").isLessThanOrEqualTo(ttlBefore).isGreaterThan(ttlBefore - 1_000);
	}

	/**
	 * All-or-nothing inside one batch: a request denied by its second check leaves the first check's state byte for
	 * byte as the admitted request before it in the same call left it (a twin subject, decided alone at the same time,
	 * shows what that is), and a peek after it in the same call sees that state.
	 */
	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void requestDeniedInsideABatchLeavesTheStateOfTheRequestBeforeItByteForByte(Algorithm algorithm) {
		RateLimitPolicy first = RateLimitPolicy.of("first", algorithm, 10, Duration.ofMinutes(10));
		RateLimitPolicy second = RateLimitPolicy.of("second", Algorithm.GCRA, 1, Duration.ofMinutes(10));
		long now = Long.parseLong(new String(redis.time().get(0), StandardCharsets.US_ASCII)) * 1_000_000;
		List<RateLimitCheck> twin = List.of(RateLimitCheck.of(first, "twin", 2), RateLimitCheck.of(second, "twin"));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(first, "user", 2), RateLimitCheck.of(second, "user"));
		List<RateLimitCheck> peek = List.of(RateLimitCheck.of(first, "user", 2));
		IssuedCommands commands = new IssuedCommands(connection.async(), false);
		new Batches(commands, this.store, new LeaseIds("t")).run(List.of(twin), List.of(false), now);

		List<RateLimitScript.Reply> replies = new Batches(commands, this.store, new LeaseIds("t"))
			.run(List.of(request, request, peek), List.of(false, false, true), now);

		assertThat(replies.get(0).allowed()).isTrue();
		assertThat(replies.get(1).allowed()).isFalse();
		assertThat(replies.get(1).decisions().get(1).allowed()).isFalse();
		assertThat(replies.get(2).decisions().get(0).remaining()).as("after two units, then two more").isEqualTo(6);
		assertThat(redis.dump(key(first, "user"))).isNotNull().isEqualTo(redis.dump(key(first, "twin")));
		assertThat(redis.dump(key(second, "user"))).isNotNull().isEqualTo(redis.dump(key(second, "twin")));
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void peekLeavesExistingStateByteForByteUnchangedAndCreatesNoKey(Algorithm algorithm) {
		RateLimitPolicy policy = RateLimitPolicy.of("peeked", algorithm, 10, Duration.ofMinutes(10));
		assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, "known", 2))).get(0).allowed()).isTrue();
		byte[] key = key(policy, "known");
		byte[] before = redis.dump(key);
		long ttlBefore = redis.pttl(key);
		assertThat(before).isNotNull();

		for (long cost : new long[] { 0, 1, 8, 9, 11 }) {
			List<Decision> peeked = this.store.peek(List.of(RateLimitCheck.of(policy, "known", cost),
					RateLimitCheck.of(policy, "unknown", cost)));
			assertThat(peeked.get(1).allowed()).isEqualTo(cost <= 10);
		}

		assertThat(redis.dump(key)).isEqualTo(before);
		long ttlAfter = redis.pttl(key);
		assertThat(ttlAfter).as("TTL not rewritten").isLessThanOrEqualTo(ttlBefore).isGreaterThan(ttlBefore - 1_000);
		assertThat(redis.exists(key(policy, "unknown"))).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void everyWrittenKeyHasTtlNoLongerThanTheAlgorithmNeeds(Algorithm algorithm) {
		Duration period = Duration.ofSeconds(90);
		RateLimitPolicy policy = RateLimitPolicy.of("ttl", algorithm, 30, period);
		for (int subject = 0; subject < 5; subject++) {
			this.store.evaluate(List.of(RateLimitCheck.of(policy, "s" + subject, 1 + subject)));
		}
		List<byte[]> keys = keysWithPrefix();
		assertThat(keys).hasSize(5);
		long bound = switch (algorithm) {
			// concurrency: until the lease timeout (the period)
			case FIXED_WINDOW, SLIDING_WINDOW_LOG, CONCURRENCY, DISTINCT -> period.toMillis();
			case SLIDING_WINDOW_COUNTER -> 2 * period.toMillis();
			// a bucket is back to "no state" after cost * interval: at most 5 units of 3 s here
			case TOKEN_BUCKET, LEAKY_BUCKET -> 5 * policy.intervalMicros() / 1_000;
			// GCRA: until the end of the second in which that falls (decision 136)
			case GCRA -> 5 * policy.intervalMicros() / 1_000 + 1_000;
		};
		for (byte[] key : keys) {
			assertThat(redis.pttl(key)).as(new String(key)).isPositive().isLessThanOrEqualTo(bound);
		}
	}

	@Test
	void requestDeniedByConcurrencyLeavesTheRateStateByteForByteUnchanged() {
		RateLimitPolicy rate = RateLimitPolicy.of("rate", Algorithm.GCRA, 10, Duration.ofMinutes(10));
		RateLimitPolicy concurrency = RateLimitPolicy.concurrency("in-flight", 1, Duration.ofMinutes(10));
		List<RateLimitCheck> request = List.of(RateLimitCheck.of(rate, "user-42"),
				RateLimitCheck.of(concurrency, "user-42"));
		assertThat(this.store.evaluate(request)).allMatch(Decision::allowed);
		byte[] before = redis.dump(key(rate, "user-42"));
		byte[] leases = redis.dump(key(concurrency, "user-42"));

		assertThat(this.store.evaluate(request).get(1).allowed()).isFalse();

		assertThat(redis.dump(key(rate, "user-42"))).isEqualTo(before);
		assertThat(redis.dump(key(concurrency, "user-42"))).isEqualTo(leases);
	}

	@Test
	void leaseSetIsASortedSetThatExpiresWithItsLatestLease() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("leases", 3, Duration.ofMinutes(1));
		Lease first = this.store.evaluate(List.of(RateLimitCheck.of(policy, "user-42"))).get(0).lease();
		Lease second = this.store.evaluate(List.of(RateLimitCheck.of(policy, "user-42", 2))).get(0).lease();
		byte[] key = key(policy, "user-42");
		assertThat(redis.type(key)).isEqualTo("zset");
		assertThat(redis.zrange(key, 0, -1)).extracting(String::new)
			.containsExactlyInAnyOrder(first.id() + ":1", second.id() + ":1", second.id() + ":2");
		assertThat(redis.pttl(key)).isPositive().isLessThanOrEqualTo(60_000);
		RateLimitPolicy longer = RateLimitPolicy.concurrency("leases", 3, Duration.ofMinutes(10));
		assertThat(this.store.renew(List.of(new Lease(longer, "user-42", first.id(), 1)))).containsExactly(true);
		assertThat(redis.pttl(key)).as("renewed for 10 minutes").isGreaterThan(60_000).isLessThanOrEqualTo(600_000);
		assertThat(this.store.release(List.of(first))).containsExactly(true);
		assertThat(redis.pttl(key)).as("the latest lease left").isPositive().isLessThanOrEqualTo(60_000);
		assertThat(this.store.release(List.of(second))).containsExactly(true);
		assertThat(redis.exists(key)).isZero();
	}

	@Test
	void hugeOrHostileSubjectsGiveBoundedKeys() {
		RateLimitPolicy policy = RateLimitPolicy.of("rule-with-a-name-of-32-characters".substring(0, 32),
				Algorithm.GCRA, 5, Duration.ofMinutes(1));
		RedisRateLimitStore longPrefix = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "p".repeat(RedisKeys.MAX_PREFIX),
				Duration.ofSeconds(5));
		List<String> subjects = List.of("x".repeat(10 * 1024), "{slot}\r\n*3\r\n$3\r\nDEL", "ä".repeat(40), " ",
				"a".repeat(65));
		for (String subject : subjects) {
			String key = longPrefix.key(policy, subject);
			assertThat(key.getBytes()).as(key).hasSizeLessThanOrEqualTo(128);
			assertThat(key).matches("p+:\\{[A-Za-z0-9._-]+:[A-Za-z0-9._:@~-]+\\}");
			assertThat(longPrefix.evaluate(List.of(RateLimitCheck.of(policy, subject))).get(0).allowed()).isTrue();
			assertThat(redis.exists(key.getBytes())).isEqualTo(1);
		}
		assertThat(this.store.key(policy, "10.0.0.1")).isEqualTo(this.prefix + ":{" + policy.name() + ":10.0.0.1}");
	}

	@Test
	void scriptIsLoadedAgainAfterRedisForgetsIt() {
		RateLimitPolicy policy = RateLimitPolicy.of("reload", Algorithm.GCRA, 5, Duration.ofMinutes(1));
		assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, "a"))).get(0).remaining()).isEqualTo(4);
		redis.scriptFlush();
		assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, "a"))).get(0).remaining()).isEqualTo(3);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, names = { "GCRA", "TOKEN_BUCKET", "LEAKY_BUCKET" })
	void bucketStateFitsInSeventyTwoBytesPerKey(Algorithm algorithm) {
		RedisRateLimitStore defaultPrefix = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "rl", Duration.ofSeconds(5));
		RateLimitPolicy policy = RateLimitPolicy.of("api", algorithm, 100, Duration.ofDays(1));
		String subject = UUID.randomUUID().toString().substring(0, 16);
		defaultPrefix.evaluate(List.of(RateLimitCheck.of(policy, subject)));
		assertThat(redis.memoryUsage(defaultPrefix.key(policy, subject).getBytes())).isLessThanOrEqualTo(72);
	}

	/**
	 * A distinct state is a set of tokens (or a HyperLogLog above 512) and the window string beside it, both
	 * expiring with the window; peeks and denied requests, of new and of seen values, leave both byte for byte as
	 * they were, even though a HyperLogLog's peek adds and restores. (The state is read once before the dump: Redis
	 * caches a HyperLogLog's count inside its bytes on the first PFCOUNT after a change.)
	 */
	@ParameterizedTest
	@ValueSource(longs = { 10, 2_000 })
	void distinctStateIsUnchangedByPeeksAndDenialsAndExpiresWithItsWindow(long limit) {
		RateLimitPolicy policy = RateLimitPolicy.of("values", Algorithm.DISTINCT, limit, Duration.ofMinutes(10));
		RateLimitPolicy strict = RateLimitPolicy.of("strict", Algorithm.GCRA, 1, Duration.ofMinutes(10));
		String subject = "10.0.0.42";
		assertThat(this.store.evaluate(List.of(RateLimitCheck.distinct(policy, subject, "u0", false),
				RateLimitCheck.of(strict, subject)))).allMatch(Decision::allowed);
		for (int i = 1; i < 5; i++) {
			this.store.evaluate(List.of(RateLimitCheck.distinct(policy, subject, "u" + i, false)));
		}
		byte[] key = key(policy, subject);
		byte[] window = (this.store.key(policy, subject) + ":w").getBytes();
		assertThat(redis.type(key)).isEqualTo((limit <= 512) ? "set" : "string");
		assertThat(new String(redis.get(window))).startsWith((limit <= 512) ? "s" : "h");
		this.store.peek(List.of(RateLimitCheck.distinct(policy, subject, "u1", false)));
		byte[] before = redis.dump(key);
		byte[] windowBefore = redis.dump(window);
		long ttlBefore = redis.pttl(key);
		assertThat(ttlBefore).isPositive().isLessThanOrEqualTo(600_000);
		assertThat(redis.pttl(window)).isPositive().isLessThanOrEqualTo(600_000);

		for (String value : List.of("u1", "u99")) {
			List<RateLimitCheck> request = List.of(RateLimitCheck.distinct(policy, subject, value, false),
					RateLimitCheck.of(strict, subject));
			assertThat(this.store.peek(request.subList(0, 1)).get(0).allowed()).isTrue();
			assertThat(this.store.peek(request).get(1).allowed()).isFalse();
			assertThat(this.store.evaluate(request).get(1).allowed()).isFalse();
		}
		assertThat(this.store.peek(List.of(RateLimitCheck.distinct(policy, "unknown", "u1", false))).get(0).allowed())
			.isTrue();

		assertThat(redis.dump(key)).isEqualTo(before);
		assertThat(redis.dump(window)).isEqualTo(windowBefore);
		assertThat(redis.pttl(key)).as("TTL not rewritten").isLessThanOrEqualTo(ttlBefore)
			.isGreaterThan(ttlBefore - 1_000);
		assertThat(redis.exists(key(policy, "unknown"))).isZero();
		assertThat(redis.exists((this.store.key(policy, "unknown") + ":w").getBytes())).isZero();
	}

	@Test
	void distinctValuesReachRedisOnlyAsTokens() {
		RateLimitPolicy policy = RateLimitPolicy.of("values", Algorithm.DISTINCT, 5, Duration.ofMinutes(10));
		String hostile = "x".repeat(10_000) + "\r\nFLUSHALL";
		this.store.evaluate(List.of(RateLimitCheck.distinct(policy, "10.0.0.1", hostile, false)));
		assertThat(redis.smembers(key(policy, "10.0.0.1"))).extracting(String::new)
			.containsExactly(dev.ratelimit.algorithm.Distinct.token(hostile))
			.allSatisfy((member) -> assertThat(member).matches("[0-9]{1,19}"));
	}

	private byte[] key(RateLimitPolicy policy, String subject) {
		return this.store.key(policy, subject).getBytes();
	}

	private List<byte[]> keysWithPrefix() {
		// every page of the cursor: one SCAN call returns one page, not the keyspace
		return ScanIterator.scan(redis, ScanArgs.Builder.matches(this.prefix + ":*").limit(1_000)).stream().toList();
	}

}
