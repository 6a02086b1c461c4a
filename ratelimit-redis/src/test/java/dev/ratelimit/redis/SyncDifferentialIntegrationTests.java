package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.algorithm.Algorithms;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Gcra;
import dev.ratelimit.algorithm.SlidingWindowCounter;
import dev.ratelimit.algorithm.Syncable;
import dev.ratelimit.algorithm.TokenBucket;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.sync.SyncFlush;
import dev.ratelimit.sync.SyncReply;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds {@code sync.lua} to the Java reference ({@code Syncable.absorb}, through the local store's
 * {@code SyncBackend}): the same random sequences of flushes (G-counter entries of several views, in the current
 * window, the previous one or an ended one; new totals, retried ones, overtaken ones, and totals sent for an entry that
 * only the view's acknowledged part vouches for) interleaved with ordinary decisions must leave the same states, reply
 * the same states and decide the same, at the same explicit times (mostly forward, sometimes stepping back, after
 * which every key starts afresh: the local store expires entries on the test's clock, Redis on its own).
 * <p>
 * Operations per algorithm: a tenth of {@code ratelimit.differential.operations} (default 100,000); seed:
 * {@code ratelimit.differential.seed}.
 */
@RedisStandaloneTest
class SyncDifferentialIntegrationTests {

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000) / 10;

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
	@EnumSource(names = { "GCRA", "TOKEN_BUCKET", "FIXED_WINDOW", "SLIDING_WINDOW_COUNTER" })
	void syncScriptMatchesReference(Algorithm algorithm) {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("s"));
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"sync-" + algorithm.ordinal() + "-" + Long.toHexString(seed), Duration.ofSeconds(30), clock::micros, new LeaseIds("s"),
				RedisBatching.OFF);
		lua.loadScripts();
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			long limit = 1 + random.nextInt(40);
			Duration period = Duration.ofMillis(1 + random.nextInt(5_000));
			RateLimitPolicy policy = RateLimitPolicy.of("p" + i, algorithm, limit, period);
			if (algorithm.usesBurst() && random.nextBoolean()) {
				policy = policy.withBurst(limit + random.nextInt(20));
			}
			if (algorithm == Algorithm.FIXED_WINDOW && random.nextBoolean()) {
				policy = policy.withSpreadWindows(true);
			}
			policies.add(policy);
		}
		String[] subjects = { "a", "b", "c" };
		String[] views = { "v1", "v2", "v3" };
		Map<String, Long> applied = new HashMap<>();
		Map<String, Long> lastApplied = new HashMap<>();
		Map<String, Integer> seen = new TreeMap<>();
		for (int done = 0; done < OPERATIONS; done++) {
			RateLimitPolicy policy = policies.get(random.nextInt(policies.size()));
			String subject = subjects[random.nextInt(subjects.length)];
			long period = Math.max(policy.periodMicros(), policy.intervalMicros() * policy.capacity());
			long step = step(random, period);
			if (step < 0) {
				// the local store expires entries on the test's clock, Redis on its own: states that one side expired
				// before the step back would come back on the other; start every key afresh on both
				for (RateLimitPolicy each : policies) {
					for (String s : subjects) {
						reference.reset(each, s);
						lua.reset(each, s);
					}
				}
				applied.clear();
				lastApplied.clear();
			}
			clock.advanceMicros(step);
			long now = clock.micros();
			String operation = "seed " + seed + ", operation " + done + " at " + now + " µs, " + policy + " " + subject;
			if (random.nextInt(100) < 35) {
				// now and then all of it at once, which a key that took any units recently cannot admit
				long cost = (random.nextInt(10) == 0) ? Math.max(policy.limit(), policy.capacity())
						: random.nextInt(2 + (int) policy.limit() / 2);
				RateLimitCheck check = RateLimitCheck.of(policy, subject, cost);
				Decision expected = reference.evaluate(List.of(check)).get(0);
				assertThat(lua.evaluate(List.of(check)).get(0)).as(operation + ", evaluate cost " + cost)
					.usingRecursiveComparison()
					.isEqualTo(expected);
				seen.merge("evaluate " + (expected.allowed() ? "allowed" : "denied"), 1, Integer::sum);
				continue;
			}
			@SuppressWarnings("unchecked")
			Syncable<Object> syncable = (Syncable<Object>) Algorithms.of(policy, subject);
			List<SyncFlush> flushes = new ArrayList<>();
			int n = 1 + random.nextInt(3);
			for (int i = 0; i < n; i++) {
				String view = views[random.nextInt(views.length)];
				long window = syncable.windowOf(now);
				int age = random.nextInt(10);
				if (window != 0 && age >= 7) {
					// the previous window, or an older one that counts nothing any more
					window -= (age - 6) * policy.periodMicros();
				}
				String entry = policy.name() + ':' + subject + ':' + view + ':' + window;
				long before = applied.getOrDefault(entry, 0L);
				int kind = random.nextInt(10);
				long total;
				if (kind < 6) {
					total = before + 1 + random.nextInt(5);
				}
				else if (kind < 8) {
					total = before; // a retry of a flush the store applied
				}
				else {
					total = (before > 0) ? random.nextLong(before) : 0; // overtaken by a later flush
				}
				// what the view knows the store acknowledged: all of it, or less when a reply was lost; less only
				// while both sides surely still hold the entry (they expire it on different clocks in this test)
				// when this entry last changed before this call (both sides keep it at least an interval after)
				Long last = lastApplied.get(entry);
				long acknowledged = before;
				if (before > 0 && random.nextInt(5) == 0 && last != null && now - last >= 0
						&& now - last < Math.min(policy.intervalMicros(), policy.periodMicros())) {
					acknowledged = random.nextLong(before);
				}
				flushes.add(new SyncFlush(policy, subject, view, window, total, acknowledged));
				if (total > before) {
					applied.put(entry, total);
					lastApplied.put(entry, now);
				}
				seen.merge((total > before) ? "flush applied" : (total == before) ? "flush retried" : "flush overtaken",
						1, Integer::sum);
			}
			SyncReply expected = reference.sync(flushes).join();
			SyncReply actual = lua.sync(flushes).join();
			assertThat(actual.nowMicros()).as(operation).isEqualTo(now);
			assertThat(effective(actual.states(), policy, now)).as(operation + ", " + flushes)
				.isEqualTo(effective(expected.states(), policy, now));
		}
		assertThat(seen).as("seed " + seed).containsKeys("evaluate allowed", "evaluate denied", "flush applied",
				"flush retried", "flush overtaken");
		lua.close();
	}

	/**
	 * The states as later decisions see them: a state that time has made empty (which Redis keeps an hour when the
	 * time is explicit, while the local store expires it on the test's clock) is none, and a sliding window counter of
	 * an earlier window than now's keeps only its own count (its previous one weighs nothing any more).
	 */
	private static List<Object> effective(List<Object> states, RateLimitPolicy policy, long now) {
		List<Object> effective = new ArrayList<>(states.size());
		long period = policy.periodMicros();
		for (Object state : states) {
			boolean empty = (state == null) || (state instanceof Gcra.State gcra && gcra.tat() <= now)
					|| (state instanceof TokenBucket.State bucket && bucket.fullAt() <= now)
					|| (state instanceof FixedWindow.State window && window.windowStart() + period <= now)
					|| (state instanceof SlidingWindowCounter.State counter
							&& counter.windowStart() + ((counter.current() > 0) ? 2 : 1) * period <= now);
			if (!empty && state instanceof SlidingWindowCounter.State counter
					&& counter.windowStart() < Math.floorDiv(now, period) * period) {
				// a window before now's: only its own count weighs any more
				state = new SlidingWindowCounter.State(counter.windowStart(), 0, counter.current());
			}
			effective.add(empty ? "none" : state);
		}
		return effective;
	}

	/** Mostly short steps within a tenth of the period, sometimes a period or more, rarely a step back. */
	private static long step(SplittableRandom random, long period) {
		int kind = random.nextInt(100);
		if (kind < 3) {
			return -random.nextLong(1 + period / 10);
		}
		if (kind < 10) {
			return random.nextLong(1 + 3 * period);
		}
		return random.nextLong(1 + period / 10);
	}

}
