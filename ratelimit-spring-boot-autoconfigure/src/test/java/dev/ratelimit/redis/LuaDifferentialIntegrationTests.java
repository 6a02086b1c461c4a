package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.RandomCosts;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds the Lua script to the Java reference: the same random sequences of (time, subject, cost) must give identical
 * decisions (allowed, remaining, retryAfter, resetAfter) from the reference maths (through the local store) and from
 * the script with an explicit {@code now}, for evaluations and for peeks, which must change no state. The time mostly
 * moves forward and sometimes steps back.
 * <p>
 * Operations per algorithm: system property {@code ratelimit.differential.operations} (default 100,000); the seed:
 * {@code ratelimit.differential.seed} (default: random, printed on failure). Requests are pipelined in batches on one
 * connection, which Redis executes in order.
 */
@RedisStandaloneTest
class LuaDifferentialIntegrationTests {

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000);

	private static final int BATCH = 2_000;

	private static final int PEEKS = 15;

	private static LettuceConnectionFactory factory;

	@BeforeAll
	static void connect(RedisEndpoint redis) {
		factory = LettuceFactories.standalone(redis);
	}

	@AfterAll
	static void disconnect() {
		factory.destroy();
	}

	@ParameterizedTest
	@EnumSource(Algorithm.class)
	void scriptMatchesReference(Algorithm algorithm) {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 6; i++) {
			policies.add(randomPolicy(random, algorithm, "d" + i));
		}
		run(random, seed, "diff-" + algorithm.scriptId() + "-" + Long.toHexString(seed), (r) -> {
			RateLimitPolicy policy = policies.get(r.nextInt(policies.size()));
			return List.of(new RateLimitCheck(policy, "s" + r.nextInt(4), RandomCosts.of(r, policy), false));
		});
	}

	@Test
	void scriptMatchesReferenceForRequestsOfSeveralChecks() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			policies.add(randomPolicy(random, algorithm, "m" + algorithm.scriptId()));
		}
		runSeveralChecks(random, seed, "multi-", policies);
	}

	/** Requests whose checks are all GCRA run gcra.lua, the fast path, with several keys, shadows and denials. */
	@Test
	void gcraFastPathMatchesReferenceForRequestsOfSeveralChecks() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			policies.add(randomPolicy(random, Algorithm.GCRA, "g" + i));
		}
		runSeveralChecks(random, seed, "mgcra-", policies);
	}

	private void runSeveralChecks(SplittableRandom random, long seed, String prefix, List<RateLimitPolicy> policies) {
		run(random, seed, prefix + Long.toHexString(seed), (r) -> {
			int checks = 1 + r.nextInt(3);
			List<RateLimitCheck> request = new ArrayList<>();
			List<Integer> used = new ArrayList<>();
			while (request.size() < checks) {
				int index = r.nextInt(policies.size());
				if (!used.contains(index)) {
					used.add(index);
					RateLimitPolicy policy = policies.get(index);
					request.add(new RateLimitCheck(policy, "s" + r.nextInt(3), RandomCosts.of(r, policy),
							r.nextInt(5) == 0));
				}
			}
			return request;
		});
	}

	/**
	 * Runs random operations: mostly evaluations, and peeks ({@value #PEEKS}%) of random cost. Half of the peeks are
	 * followed, at the same microsecond, by the evaluation of the same request, which must decide exactly what the
	 * peek answered. A second reference store never sees a peek: every evaluation must decide there as in the store
	 * that saw them, so a peek changes no state in the reference, and (through the comparison with the reference) none
	 * in Redis.
	 */
	private void run(SplittableRandom random, long seed, String prefix, RequestGenerator requests) {
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock);
		LocalRateLimitStore unpeeked = new LocalRateLimitStore(1_000_000, clock);
		RedisRateLimitStore lua = new RedisRateLimitStore(factory, prefix, Duration.ofSeconds(30), clock::micros);
		// pipelined calls that meet NOSCRIPT are retried with EVAL after later calls already ran: load first
		lua.loadScripts();
		Map<String, RateLimitCheck> written = new LinkedHashMap<>();
		int done = 0;
		List<RateLimitCheck> peekedRequest = null;
		List<Decision> peeked = null;
		while (done < OPERATIONS) {
			List<List<RateLimitCheck>> batch = new ArrayList<>();
			List<String> operations = new ArrayList<>();
			List<List<Decision>> expected = new ArrayList<>();
			List<CompletableFuture<List<Decision>>> actual = new ArrayList<>();
			for (int i = 0; i < BATCH && done < OPERATIONS; i++, done++) {
				boolean afterPeek = peekedRequest != null;
				long step = afterPeek ? 0 : randomStep(random);
				if (step < 0) {
					forgetStaleStates(written, reference, unpeeked, lua);
				}
				clock.advanceMicros(step);
				List<RateLimitCheck> request = afterPeek ? peekedRequest : requests.next(random);
				boolean peek = !afterPeek && random.nextInt(100) < PEEKS;
				batch.add(request);
				operations.add("seed " + seed + ", operation " + done + " at " + clock.micros() + " µs"
						+ ((step < 0) ? " (stepped back " + -step + " µs)" : "")
						+ (peek ? ", peek" : afterPeek ? ", right after its peek" : ""));
				List<Decision> decisions;
				if (peek) {
					decisions = reference.peek(request);
					actual.add(lua.peekAsync(request));
					boolean evaluateNext = random.nextBoolean();
					peekedRequest = evaluateNext ? request : null;
					peeked = evaluateNext ? decisions : null;
				}
				else {
					decisions = reference.evaluate(request);
					actual.add(lua.evaluateAsync(request));
					for (RateLimitCheck check : request) {
						written.put(check.policy().name() + ':' + check.subject(), check);
					}
					assertThat(unpeeked.evaluate(request)).as("%s, never peeked: %s", operations.get(i), request)
						.isEqualTo(decisions);
					if (afterPeek) {
						assertThat(decisions).as("%s: %s", operations.get(i), request).isEqualTo(peeked);
						peekedRequest = null;
					}
				}
				expected.add(decisions);
			}
			for (int i = 0; i < batch.size(); i++) {
				assertThat(actual.get(i).join()).as("%s: %s", operations.get(i), batch.get(i)).isEqualTo(expected.get(i));
			}
		}
	}

	/**
	 * Forgets, in every store, each state that its algorithm already treats as none (its cost-0 {@code resetAfter} is
	 * zero). Such a state may vanish at any moment: Redis expires it, the local store's cache drops it. Going
	 * forwards that changes no decision, but once the clock steps back the state would count again if it is still
	 * there: Redis keeps it here (explicit times give keys an hour), the reference may have dropped it. So before each
	 * step back the test forgets stale states in all stores alike, and the stores compare algorithms, not expiry.
	 */
	private static void forgetStaleStates(Map<String, RateLimitCheck> written, LocalRateLimitStore reference,
			LocalRateLimitStore unpeeked, RedisRateLimitStore lua) {
		for (Iterator<RateLimitCheck> each = written.values().iterator(); each.hasNext();) {
			RateLimitCheck check = each.next();
			Decision inspected = reference.peek(List.of(new RateLimitCheck(check.policy(), check.subject(), 0, false)))
				.get(0);
			if (inspected.resetAfter().isZero()) {
				reference.reset(check.policy(), check.subject());
				unpeeked.reset(check.policy(), check.subject());
				lua.reset(check.policy(), check.subject());
				each.remove();
			}
		}
	}

	private static long seed() {
		String configured = System.getProperty("ratelimit.differential.seed");
		return (configured != null) ? Long.parseLong(configured) : new SplittableRandom().nextLong();
	}

	/**
	 * Mostly short steps, sometimes none (a burst in one microsecond), sometimes an idle gap of minutes to days, and
	 * sometimes the clock stepping back: by up to 200 ms, up to 20 s (an NTP step), rarely up to two hours.
	 */
	private static long randomStep(SplittableRandom random) {
		int kind = random.nextInt(1000);
		if (kind < 200) {
			return 0;
		}
		if (kind < 830) {
			return random.nextLong(1, 200_000);
		}
		if (kind < 842) {
			return -random.nextLong(1, 200_000);
		}
		if (kind < 970) {
			return random.nextLong(200_000, 20_000_000);
		}
		if (kind < 976) {
			return -random.nextLong(200_000, 20_000_000);
		}
		if (kind < 978) {
			return -random.nextLong(20_000_000, 7_200_000_000L);
		}
		return random.nextLong(20_000_000, 200_000_000_000L);
	}

	private static RateLimitPolicy randomPolicy(SplittableRandom random, Algorithm algorithm, String name) {
		long[] periods = { 1_000, 7_777, 100_000, 1_000_000, 3_000_000, 60_000_000, 3_600_000_000L };
		long periodMicros = periods[random.nextInt(periods.length)];
		long limit = random.nextLong(1, 40);
		RateLimitPolicy policy = RateLimitPolicy.of(name, algorithm, limit, Duration.ofNanos(periodMicros * 1_000));
		if (algorithm.usesBurst() && random.nextBoolean()) {
			policy = policy.withBurst(random.nextLong(1, 60));
		}
		if (algorithm == Algorithm.FIXED_WINDOW && random.nextBoolean()) {
			policy = policy.withSpreadWindows(true);
		}
		return policy;
	}

	@FunctionalInterface
	private interface RequestGenerator {

		List<RateLimitCheck> next(SplittableRandom random);

	}

}
