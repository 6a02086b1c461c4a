package dev.ratelimit.redis;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.Race;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * 64 threads over two separate Redis connections hammer one key: an exact algorithm admits exactly its limit, never
 * one more, with the store's natural batching on (requests decided several to a script call). Time is held still (explicit {@code now}) so that nothing refills during the race.
 */
@RedisStandaloneTest
class RedisConcurrencyIntegrationTests {

	private static final int THREADS = 64;

	private static final int ATTEMPTS_PER_THREAD = 40;

	private static final long LIMIT = 500;

	private static LettuceConnectionFactory first;

	private static LettuceConnectionFactory second;

	@BeforeAll
	static void connect(RedisEndpoint redis) {
		first = LettuceFactories.standalone(redis);
		second = LettuceFactories.standalone(redis);
	}

	@AfterAll
	static void disconnect() {
		first.destroy();
		second.destroy();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void manyClientsOnOneKeyAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
		MutableClock clock = MutableClock.atRealisticEpoch();
		RedisRateLimitStore one = new RedisRateLimitStore(SpringDataRedisConnection.of(first), "rl-race", Duration.ofSeconds(10), clock::micros);
		RedisRateLimitStore two = new RedisRateLimitStore(SpringDataRedisConnection.of(second), "rl-race", Duration.ofSeconds(10), clock::micros);
		assertThat(race(algorithm, one, two)).isEqualTo(LIMIT);
		// batching is on (the default): 32 threads per store on 2 lanes, so requests shared script calls
		long[] batches = one.batchStatistics();
		assertThat(batches[1]).as("decisions carried by %d script calls", batches[0]).isGreaterThan(batches[0]);
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void manyThreadsOnTheLocalStoreAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
		RateLimitStore local = new LocalRateLimitStore(1_000, MutableClock.atRealisticEpoch());
		assertThat(race(algorithm, local, local)).isEqualTo(LIMIT);
	}

	/** Returns how many of {@code THREADS * ATTEMPTS_PER_THREAD} attempts were admitted. */
	private static long race(Algorithm algorithm, RateLimitStore one, RateLimitStore two) throws Exception {
		RateLimitPolicy policy = RateLimitPolicy.of("race", algorithm, LIMIT, Duration.ofHours(1));
		String subject = UUID.randomUUID().toString();
		AtomicInteger admitted = new AtomicInteger();
		Race.run(THREADS, (thread) -> {
			RateLimitStore store = (thread % 2 == 0) ? one : two;
			for (int i = 0; i < ATTEMPTS_PER_THREAD; i++) {
				if (store.evaluate(List.of(RateLimitCheck.of(policy, subject))).get(0).allowed()) {
					admitted.incrementAndGet();
				}
			}
		});
		return admitted.get();
	}

}
