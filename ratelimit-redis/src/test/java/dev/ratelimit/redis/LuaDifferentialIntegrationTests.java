package dev.ratelimit.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.DenialStatus;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.algorithm.Distinct;
import dev.ratelimit.lease.Lease;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.local.LocalStoreStates;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.RandomCosts;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Binds the Lua script to the Java reference: the same random sequences of (time, subject, cost) must give identical
 * decisions (allowed, remaining, retryAfter, resetAfter, and the lease acquired and slots reclaimed) from the
 * reference maths (through the local store) and from the script with an explicit {@code now}, for evaluations and for
 * peeks, which must change no state, and for refunds of what admitted requests consumed ({@code count-when}: the
 * script's refund mode against {@code LimitAlgorithm.refund}), mostly of a request just admitted, sometimes of an
 * older one whose window has gone by. Leases acquired are released and renewed at random ({@code lease.lua}), with the
 * same answers on both sides, and the lease sets that both sides keep must be equal. The time mostly moves forward
 * and sometimes steps back. Both sides draw their lease ids from generators with the same prefix, so they agree.
 * <p>
 * Operations: system property {@code ratelimit.differential.operations} (default 100,000), which the distinct-values
 * test runs in full (its rarest event, a new value denied by an exact set, is seen about once per 3,000 operations),
 * the tests of leases and of requests of several checks half of, each algorithm's test a quarter of and the
 * reservations test a fifth of; the seed: {@code ratelimit.differential.seed} (default: random, printed on
 * failure). Requests are pipelined on one connection, which Redis executes in order. The tests of leases, of
 * reservations and of requests of several checks of every algorithm run on the store's natural batching (its default,
 * decision 73): requests of one time share script calls, and releases, renewals, refunds and cancellations wait
 * behind them in order. The others send every request alone (batching off), the format of a request that finds a
 * lane free, and pipeline them all; the batch entry itself is bound by {@code LuaBatchDifferentialIntegrationTests}.
 */
@RedisStandaloneTest
class LuaDifferentialIntegrationTests {

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000);

	private static final int BATCH = 2_000;

	/** Every request alone, pipelined: the script's entry for one request. */
	private static final Drive ALONE = new Drive(BATCH, OPERATIONS, RedisBatching.OFF);

	/** The store's natural batching, as configured by default. */
	private static final Drive BATCHED = new Drive(BATCH, OPERATIONS, RedisBatching.DEFAULT);

	private static final int PEEKS = 15;

	private static final int LEASE_BATCH = 100;

	/** Percentage of operations that cancel a reservation, while any were made. */
	private static final int CANCELS = 10;

	/** Percentage of operations that release or renew leases, while any were acquired. */
	private static final int LEASE_OPERATIONS = 25;

	/** Percentage of operations that refund what an admitted request consumed (count-when), while any did. */
	private static final int REFUND_OPERATIONS = 8;

	/**
	 * Percentage of operations that settle what admitted requests reserved (cost known after the response), while any
	 * did.
	 */
	private static final int SETTLE_OPERATIONS = 8;

	private static LettuceConnectionFactory factory;

	private static RedisClient client;

	private static StatefulRedisConnection<String, String> connection;

	private static RedisCommands<String, String> redis;

	@BeforeAll
	static void connect(RedisEndpoint endpoint) {
		factory = LettuceFactories.standalone(endpoint);
		client = RedisClient.create(endpoint.uri());
		connection = client.connect(StringCodec.UTF8);
		redis = connection.sync();
	}

	@AfterAll
	static void disconnect() {
		connection.close();
		client.shutdown();
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
		Map<String, Integer> seen = run(random, seed, "diff-" + algorithm.scriptId() + "-" + Long.toHexString(seed),
				ALONE.part(4), (r) -> {
					RateLimitPolicy policy = policies.get(r.nextInt(policies.size()));
					return List.of(randomCheck(r, policy, "s" + r.nextInt(4), false));
				});
		// concurrency releases, and a distinct value is never refunded (no receipt: Verdict.consumptions)
		if (algorithm != Algorithm.CONCURRENCY && algorithm != Algorithm.DISTINCT) {
			assertThat(seen).as("seed %d", seed).containsKey("refund");
		}
		if (algorithm != Algorithm.CONCURRENCY && algorithm != Algorithm.DISTINCT
				&& algorithm != Algorithm.SLIDING_WINDOW_LOG) {
			assertThat(seen).as("seed %d", seed)
				.containsKeys("settle: charged", "settle: given back", "settle: equal", "settle: in debt",
						"settle: several at once");
		}
	}

	/**
	 * Warm-up (issue #31) of GCRA and the token bucket, through {@code ratelimit.lua}, on the full number of operations
	 * (10^5 by default): random warm-ups from 1 µs (a tiny one must not disable the limit) to minutes, and cold
	 * factors from 1.5 to 10, beside plain policies of the same algorithms; the limit in force that the script replies
	 * must be the reference's. The sequence must have seen a cold key (a limit below the policy's) and a warm one.
	 */
	@Test
	void warmUpMatchesReference() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		long[] warmUps = { 1, 1_000, 250_000, 2_000_000, 30_000_000, 600_000_000 };
		double[] coldFactors = { 1.5, 2, 3, 3, 4.25, 10 };
		for (int i = 0; i < 8; i++) {
			Algorithm algorithm = (i % 2 == 0) ? Algorithm.GCRA : Algorithm.TOKEN_BUCKET;
			RateLimitPolicy policy = randomPolicy(random, algorithm, "wu" + i);
			if (i < 6) {
				policy = policy.withWarmUp(Duration.ofNanos(1_000 * warmUps[random.nextInt(warmUps.length)]),
						coldFactors[random.nextInt(coldFactors.length)]);
			}
			policies.add(policy);
		}
		Map<String, Integer> seen = run(random, seed, "dw-" + Long.toHexString(seed), ALONE, (r) -> {
			RateLimitPolicy policy = policies.get(r.nextInt(policies.size()));
			return List.of(randomCheck(r, policy, "s" + r.nextInt(4), false));
		});
		assertThat(seen).as("seed %d", seed)
			.containsKeys("refund", "cold", "warm", "settle: charged", "settle: given back", "settle: in debt");
	}

	/**
	 * Distinct values, counted exactly (limits up to 1,000) and in HyperLogLogs (above), alone and beside another
	 * rule in one request: the sequence must have covered, for both forms, a new value admitted, a seen value admitted
	 * and a new value denied, and a request denied by the other rule.
	 */
	@Test
	void distinctValuesMatchReferenceExactlyAndInHyperLogLogs() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (int i = 0; i < 4; i++) {
			long limit = (i % 2 == 0) ? random.nextLong(1, 12)
					: random.nextLong(Distinct.EXACT_MAX_LIMIT + 1, Distinct.EXACT_MAX_LIMIT + 60);
			// idle gaps of the random clock reach days: one sketch gets a year to fill up
			long[] periods = { 3_600_000_000L, 31_536_000_000_000L, 60_000_000L, 3_600_000_000L };
			long period = periods[i];
			policies.add(RateLimitPolicy.of("v" + i, Algorithm.DISTINCT, limit, Duration.ofNanos(period * 1_000)));
		}
		RateLimitPolicy other = RateLimitPolicy.of("o", Algorithm.GCRA, 20, Duration.ofSeconds(1));
		Map<String, Integer> seen = run(random, seed, "dv-" + Long.toHexString(seed), ALONE, (r) -> {
			// half of the requests fill the year-long sketch of one subject (the random clock spans years)
			int index = r.nextBoolean() ? 1 : r.nextInt(policies.size());
			RateLimitCheck check = randomCheck(r, policies.get(index), (index == 1) ? "s0" : "s" + r.nextInt(2), false);
			return (r.nextInt(4) == 0) ? List.of(check, randomCheck(r, other, "s0", false)) : List.of(check);
		});
		assertThat(seen).as("seed %d", seed)
			.containsKeys("exact: new admitted", "exact: seen admitted", "exact: new denied",
					"hyperloglog: new admitted", "hyperloglog: seen admitted", "hyperloglog: new denied",
					"distinct allowed, denied by another rule");
	}

	@Test
	void scriptMatchesReferenceForRequestsOfSeveralChecks() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			policies.add(randomPolicy(random, algorithm, "m" + algorithm.scriptId()));
		}
		runSeveralChecks(random, seed, "multi-", policies, BATCHED.part(2));
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
		runSeveralChecks(random, seed, "mgcra-", policies, ALONE.part(2));
	}

	/**
	 * Leases in requests of several checks: every request has a concurrency check (small limits, random lease
	 * timeouts) and up to two rate checks of random algorithms, in random order, some of them shadows. A quarter of
	 * the operations release or renew leases (held, released before, expired, or unknown). The lease sets of both
	 * sides are compared every {@value #LEASE_BATCH} operations. The sequence must have covered both directions of
	 * all-or-nothing, releases and renewals of held and of gone leases, and reclaimed slots.
	 */
	@Test
	void leasesMatchReferenceForRequestsOfRatesAndConcurrency() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> leased = new ArrayList<>();
		for (int i = 0; i < 2; i++) {
			long[] timeouts = { 1_000, 100_000, 1_000_000, 3_000_000, 60_000_000 };
			leased.add(RateLimitPolicy.concurrency("c" + i, random.nextLong(1, 9),
					Duration.ofNanos(timeouts[random.nextInt(timeouts.length)] * 1_000)));
		}
		List<RateLimitPolicy> rates = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			Algorithm algorithm = Algorithm.values()[random.nextInt(Algorithm.CONCURRENCY.ordinal())];
			rates.add(randomPolicy(random, algorithm, "r" + i));
		}
		Map<String, Integer> seen = run(random, seed, "lease-" + Long.toHexString(seed),
				new Drive(LEASE_BATCH, OPERATIONS / 2, RedisBatching.DEFAULT), (r) -> {
			List<RateLimitCheck> request = new ArrayList<>();
			List<Integer> used = new ArrayList<>();
			for (int checks = r.nextInt(3); request.size() < checks;) {
				int index = r.nextInt(rates.size());
				if (!used.contains(index)) {
					used.add(index);
					RateLimitPolicy policy = rates.get(index);
					request.add(randomCheck(r, policy, "s" + r.nextInt(3), r.nextInt(8) == 0));
				}
			}
			RateLimitPolicy policy = leased.get(r.nextInt(leased.size()));
			request.add(r.nextInt(request.size() + 1), new RateLimitCheck(policy, "s" + r.nextInt(3),
					RandomCosts.of(r, policy), r.nextInt(8) == 0));
			return request;
		}, false);
		assertThat(seen).as("seed %d", seed)
			.containsKeys("denied by a rate check, concurrency allowing",
					"denied by concurrency, a rate check allowing", "reclaimed", "release [true]", "release [false]", "renew [true]", "renew [false]");
	}

	/**
	 * Reservations: requests of one to three checks of every algorithm, where the checks of the buckets and GCRA
	 * accept a random wait (none, shorter or longer than a period), some of them shadows, evaluated and peeked at;
	 * {@value #CANCELS}% of the operations cancel one of the last reservations, in both stores. Every decision
	 * (with its delay) must be the same, and the sequence must have covered reservations alone and with other
	 * checks, denials beyond the wait, and cancellations.
	 */
	@Test
	void reservationsMatchReference() {
		long seed = seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = new ArrayList<>();
		for (Algorithm algorithm : Algorithm.values()) {
			if (algorithm != Algorithm.CONCURRENCY) {
				policies.add(randomPolicy(random, algorithm, "w" + algorithm.scriptId()));
			}
			if (algorithm.supportsReservations()) {
				policies.add(randomPolicy(random, algorithm, "v" + algorithm.scriptId()));
			}
		}
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "resv-" + Long.toHexString(seed),
				Duration.ofSeconds(30), clock::micros, new LeaseIds("d"));
		lua.loadScripts();
		List<List<RateLimitCheck>> reserved = new ArrayList<>();
		Map<String, Integer> seen = new TreeMap<>();
		int operations = OPERATIONS / 5;
		for (int done = 0; done < operations;) {
			List<String> described = new ArrayList<>();
			List<Object> expected = new ArrayList<>();
			List<CompletableFuture<?>> actual = new ArrayList<>();
			for (int i = 0; i < BATCH && done < operations; i++, done++) {
				// forwards only: reservations reach into the future, and stepping back is covered elsewhere
				clock.advanceMicros(Math.abs(randomStep(random)));
				String operation = "seed " + seed + ", operation " + done + " at " + clock.micros() + " µs";
				if (!reserved.isEmpty() && random.nextInt(100) < CANCELS) {
					List<RateLimitCheck> cancelled = reserved.remove(reserved.size() - 1 - random.nextInt(
							Math.min(reserved.size(), 4)));
					reference.cancel(cancelled);
					actual.add(lua.cancelAsync(cancelled));
					described.add(operation + ", cancel " + cancelled);
					expected.add(null);
					seen.merge("cancelled", 1, Integer::sum);
					continue;
				}
				List<RateLimitCheck> request = randomWaitingRequest(random, policies);
				boolean peek = random.nextInt(100) < PEEKS;
				described.add(operation + (peek ? ", peek: " : ": ") + request);
				List<Decision> decisions = peek ? reference.peek(request) : reference.evaluate(request);
				actual.add(peek ? lua.peekAsync(request) : lua.evaluateAsync(request));
				expected.add(decisions);
				Verdict verdict = new Verdict(request, decisions);
				if (!verdict.delay().isZero()) {
					seen.merge((request.size() == 1) ? "reserved alone" : "reserved with other checks", 1,
							Integer::sum);
					if (!peek) {
						reserved.add(request.stream().filter((check) -> verdict.decisions()
							.get(request.indexOf(check))
							.allowed()).toList());
						while (reserved.size() > 16) {
							reserved.remove(0);
						}
					}
				}
				else if (!verdict.allowed() && request.stream().anyMatch((check) -> !check.maxWait().isZero())) {
					seen.merge("denied with a wait allowed", 1, Integer::sum);
				}
			}
			for (int i = 0; i < actual.size(); i++) {
				assertThat(actual.get(i).join()).as(described.get(i)).isEqualTo(expected.get(i));
			}
		}
		assertThat(seen).as("seed %d", seed)
			.containsKeys("reserved alone", "reserved with other checks", "denied with a wait allowed", "cancelled");
	}

	/**
	 * Returns one to three checks of distinct policies, among two subjects, some shadows, some (of the algorithms that
	 * can reserve) accepting a wait.
	 */
	static List<RateLimitCheck> randomWaitingRequest(SplittableRandom random, List<RateLimitPolicy> policies) {
		List<RateLimitCheck> request = new ArrayList<>();
		List<Integer> used = new ArrayList<>();
		for (int checks = 1 + random.nextInt(3); request.size() < checks;) {
			int index = random.nextInt(policies.size());
			if (!used.contains(index)) {
				used.add(index);
				RateLimitPolicy policy = policies.get(index);
				// a distinct check presents a value, and (like the windows) never waits
				request.add(randomCheck(random, policy, "s" + random.nextInt(2), random.nextInt(8) == 0)
					.withMaxWait(randomMaxWait(random, policy)));
			}
		}
		return request;
	}

	/** Returns no wait for half of the checks that can reserve (and all others), else up to two periods. */
	private static Duration randomMaxWait(SplittableRandom random, RateLimitPolicy policy) {
		if (!policy.algorithm().supportsReservations() || random.nextBoolean()) {
			return Duration.ZERO;
		}
		return Duration.ofNanos(random.nextLong(1, 2 * policy.periodMicros() + 2) * 1_000);
	}

	private void runSeveralChecks(SplittableRandom random, long seed, String prefix, List<RateLimitPolicy> policies,
			Drive drive) {
		run(random, seed, prefix + Long.toHexString(seed), drive, (r) -> {
			int checks = 1 + r.nextInt(3);
			List<RateLimitCheck> request = new ArrayList<>();
			List<Integer> used = new ArrayList<>();
			while (request.size() < checks) {
				int index = r.nextInt(policies.size());
				if (!used.contains(index)) {
					used.add(index);
					RateLimitPolicy policy = policies.get(index);
					request.add(randomCheck(r, policy, "s" + r.nextInt(3), r.nextInt(5) == 0));
				}
			}
			return request;
		});
	}

	/**
	 * Runs random operations: mostly evaluations, and peeks ({@value #PEEKS}%) of random cost. Half of the peeks are
	 * followed, at the same microsecond, by the evaluation of the same request, which must decide exactly what the
	 * peek answered (except for the lease, which only the evaluation acquires). A second reference store never sees a
	 * peek: every evaluation must decide there as in the store that saw them, so a peek changes no state in the
	 * reference, and (through the comparison with the reference) none in Redis. While leases have been acquired,
	 * {@value #LEASE_OPERATIONS}% of the operations release or renew some of the last 64 (which may be released or
	 * expired by then, or are sometimes unknown). At the end of each batch the lease sets must be equal.
	 * @return how often each kind of lease event was seen
	 */
	private Map<String, Integer> run(SplittableRandom random, long seed, String prefix, Drive drive,
			RequestGenerator requests) {
		return run(random, seed, prefix, drive, requests, true);
	}

	/**
	 * Runs random operations, with refunds or without (the lease test keeps the mix of operations whose coverage it
	 * asserts, reclaimed slots included; refunds are bound by the other tests).
	 */
	private Map<String, Integer> run(SplittableRandom random, long seed, String prefix, Drive drive,
			RequestGenerator requests, boolean refunds) {
		MutableClock clock = MutableClock.atRealisticEpoch();
		clock.advanceMicros(random.nextLong(1_000_000_000_000L));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		LocalRateLimitStore unpeeked = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("d"));
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), prefix, Duration.ofSeconds(30), clock::micros,
				new LeaseIds("d"), drive.batching());
		// pipelined calls that meet NOSCRIPT are retried with EVAL after later calls already ran: load first
		lua.loadScripts();
		Map<String, RateLimitCheck> written = new LinkedHashMap<>();
		List<Lease> leases = new ArrayList<>();
		List<Consumption> consumptions = new ArrayList<>();
		Map<String, Integer> seen = new TreeMap<>();
		int done = 0;
		List<RateLimitCheck> peekedRequest = null;
		List<Decision> peeked = null;
		while (done < drive.operations()) {
			List<String> operations = new ArrayList<>();
			List<Object> expected = new ArrayList<>();
			List<CompletableFuture<?>> actual = new ArrayList<>();
			for (int i = 0; i < drive.pipelined() && done < drive.operations(); i++, done++) {
				boolean afterPeek = peekedRequest != null;
				long step = afterPeek ? 0 : randomStep(random);
				if (step < 0) {
					forgetStaleStates(written, reference, unpeeked, lua);
				}
				clock.advanceMicros(step);
				String operation = "seed " + seed + ", operation " + done + " at " + clock.micros() + " µs"
						+ ((step < 0) ? " (stepped back " + -step + " µs)" : "");
				if (!afterPeek && !leases.isEmpty() && random.nextInt(100) < LEASE_OPERATIONS) {
					List<Lease> chosen = someLeases(random, leases);
					boolean renew = random.nextInt(3) == 0;
					String kind = renew ? "renew " : "release ";
					List<Boolean> answers = renew ? reference.renew(chosen) : reference.release(chosen);
					assertThat(renew ? unpeeked.renew(chosen) : unpeeked.release(chosen))
						.as("%s, never peeked: %s%s", operation, kind, chosen)
						.isEqualTo(answers);
					actual.add(renew ? lua.renewAsync(chosen) : lua.releaseAsync(chosen));
					operations.add(operation + ", " + kind + chosen);
					expected.add(answers);
					seen.merge(kind + answers, 1, Integer::sum);
					continue;
				}
				if (refunds && !afterPeek && !consumptions.isEmpty() && random.nextInt(100) < REFUND_OPERATIONS) {
					// mostly one of the latest (a request that just ended), sometimes an older one
					int back = (random.nextInt(4) == 0) ? random.nextInt(consumptions.size())
							: random.nextInt(Math.min(consumptions.size(), 4));
					List<Consumption> refunded = List.of(consumptions.remove(consumptions.size() - 1 - back));
					List<Decision> answers = reference.refund(refunded);
					assertThat(unpeeked.refund(refunded)).as("%s, never peeked: refund %s", operation, refunded)
						.isEqualTo(answers);
					actual.add(lua.refundAsync(refunded));
					operations.add(operation + ", refund " + refunded);
					expected.add(answers);
					seen.merge("refund", 1, Integer::sum);
					continue;
				}
				if (refunds && !afterPeek && random.nextInt(100) < SETTLE_OPERATIONS) {
					List<Settlement> settlements = someSettlements(random, consumptions);
					if (!settlements.isEmpty()) {
						List<Decision> answers = reference.settle(settlements);
						assertThat(unpeeked.settle(settlements)).as("%s, never peeked: settle %s", operation,
								settlements)
							.isEqualTo(answers);
						actual.add(lua.settleAsync(settlements));
						operations.add(operation + ", settle " + settlements);
						expected.add(answers);
						countSettleEvents(settlements, answers, seen);
						for (Settlement settlement : settlements) {
							// a charge creates state: it must be forgotten alike before the clock steps back
							RateLimitCheck check = settlement.inspection();
							written.put(check.policy().name() + ':' + check.subject(), check);
						}
						continue;
					}
				}
				List<RateLimitCheck> request = afterPeek ? peekedRequest : requests.next(random);
				boolean peek = !afterPeek && random.nextInt(100) < PEEKS;
				operations.add(operation + (peek ? ", peek: " : afterPeek ? ", right after its peek: " : ": ")
						+ request);
				List<Decision> decisions;
				if (peek) {
					decisions = reference.peek(request);
					actual.add(lua.peekAsync(request));
					boolean evaluateNext = random.nextBoolean();
					peekedRequest = evaluateNext ? request : null;
					peeked = evaluateNext ? decisions : null;
				}
				else {
					List<Decision> decisionsBefore = reference.peek(withoutCosts(request));
					decisions = reference.evaluate(request);
					actual.add(lua.evaluateAsync(request));
					for (RateLimitCheck check : request) {
						written.put(check.policy().name() + ':' + check.subject(), check);
					}
					assertThat(unpeeked.evaluate(request)).as("%s, never peeked", operations.get(i))
						.isEqualTo(decisions);
					if (afterPeek) {
						assertThat(withoutLeases(decisions)).as(operations.get(i)).isEqualTo(peeked);
						peekedRequest = null;
					}
					Verdict verdict = new Verdict(request, decisions);
					leases.addAll(verdict.leases());
					while (leases.size() > 64) {
						leases.remove(0);
					}
					consumptions.addAll(verdict.consumptions());
					while (consumptions.size() > 64) {
						consumptions.remove(0);
					}
					countLeaseEvents(verdict, seen);
					countWarmUpEvents(verdict, seen);
					countDistinctEvents(verdict, decisionsBefore, seen);
				}
				expected.add(decisions);
			}
			for (int i = 0; i < actual.size(); i++) {
				assertThat(actual.get(i).join()).as(operations.get(i)).isEqualTo(expected.get(i));
			}
			assertSameLeaseSets(written, reference, unpeeked, lua, clock.micros(),
					"seed " + seed + " by operation " + done);
		}
		return seen;
	}

	/**
	 * Takes one to three consumptions that can be settled (mostly of the latest requests, sometimes older ones, so
	 * of several admission times and windows) and settles each at a random actual cost: the estimate, less (down to
	 * 0), or more, often far more than the limit (debt).
	 */
	private static List<Settlement> someSettlements(SplittableRandom random, List<Consumption> consumptions) {
		List<Settlement> settlements = new ArrayList<>();
		int wanted = 1 + ((random.nextInt(3) == 0) ? random.nextInt(3) : 0);
		for (int tries = 0; tries < 8 && settlements.size() < wanted && !consumptions.isEmpty(); tries++) {
			int back = (random.nextInt(4) == 0) ? random.nextInt(consumptions.size())
					: random.nextInt(Math.min(consumptions.size(), 4));
			Consumption consumption = consumptions.get(consumptions.size() - 1 - back);
			if (!Settlement.supports(consumption.policy()) || settlements.stream()
				.anyMatch((other) -> sameKey(other.consumption(), consumption))) {
				continue;
			}
			consumptions.remove(consumptions.size() - 1 - back);
			settlements.add(new Settlement(consumption, randomActualCost(random, consumption)));
		}
		return settlements;
	}

	private static boolean sameKey(Consumption a, Consumption b) {
		return a.policy().name().equals(b.policy().name()) && a.subject().equals(b.subject());
	}

	/** Returns the estimate (a quarter), less (a quarter), or more: up to the limit, or up to ten times it. */
	static long randomActualCost(SplittableRandom random, Consumption consumption) {
		long cost = consumption.cost();
		int kind = random.nextInt(4);
		if (kind == 0) {
			return cost;
		}
		if (kind == 1) {
			return random.nextLong(cost);
		}
		long limit = Math.max(1, consumption.policy().limit());
		return cost + 1 + random.nextLong((kind == 2) ? limit : 10 * limit);
	}

	private static void countSettleEvents(List<Settlement> settlements, List<Decision> answers,
			Map<String, Integer> seen) {
		if (settlements.size() > 1) {
			seen.merge("settle: several at once", 1, Integer::sum);
		}
		for (int i = 0; i < settlements.size(); i++) {
			long difference = settlements.get(i).difference();
			seen.merge((difference > 0) ? "settle: charged" : (difference < 0) ? "settle: given back" : "settle: equal",
					1, Integer::sum);
			if (difference > 0 && !answers.get(i).allowed()) {
				seen.merge("settle: in debt", 1, Integer::sum);
			}
		}
	}

	/** Returns one or two of the leases, sometimes with one that no store ever granted. */
	private static List<Lease> someLeases(SplittableRandom random, List<Lease> leases) {
		List<Lease> chosen = new ArrayList<>();
		chosen.add(leases.get(leases.size() - 1 - random.nextInt(Math.min(leases.size(), 8))));
		int kind = random.nextInt(10);
		if (kind == 0) {
			Lease known = chosen.get(0);
			chosen.add(new Lease(known.policy(), known.subject(), "d.unknown", known.slots()));
		}
		else if (kind == 1) {
			Lease other = leases.get(random.nextInt(leases.size()));
			if (!chosen.contains(other)) {
				chosen.add(other);
			}
		}
		return chosen;
	}

	private static void countWarmUpEvents(Verdict verdict, Map<String, Integer> seen) {
		for (int i = 0; i < verdict.checks().size(); i++) {
			RateLimitPolicy policy = verdict.checks().get(i).policy();
			if (policy.warmsUp()) {
				seen.merge((verdict.decisions().get(i).limit() < policy.limit()) ? "cold" : "warm", 1, Integer::sum);
			}
		}
	}

	private static void countLeaseEvents(Verdict verdict, Map<String, Integer> seen) {
		boolean concurrencyAllowed = false;
		boolean concurrencyDenied = false;
		boolean rateAllowed = false;
		for (int i = 0; i < verdict.checks().size(); i++) {
			RateLimitCheck check = verdict.checks().get(i);
			Decision decision = verdict.decisions().get(i);
			boolean concurrency = check.policy().algorithm() == Algorithm.CONCURRENCY;
			concurrencyAllowed |= concurrency && check.enforced() && check.cost() > 0 && decision.allowed();
			concurrencyDenied |= concurrency && check.enforced() && !decision.allowed();
			rateAllowed |= !concurrency && check.cost() > 0 && decision.allowed();
			if (decision.reclaimed() > 0) {
				seen.merge("reclaimed", 1, Integer::sum);
			}
		}
		if (!verdict.allowed() && concurrencyAllowed) {
			seen.merge("denied by a rate check, concurrency allowing", 1, Integer::sum);
		}
		if (concurrencyDenied && rateAllowed) {
			seen.merge("denied by concurrency, a rate check allowing", 1, Integer::sum);
		}
	}

	private static List<RateLimitCheck> withoutCosts(List<RateLimitCheck> request) {
		return request.stream().map((check) -> check.withCost(0)).toList();
	}

	/** Counts what distinct checks did: admitted a new or a seen value (remaining unchanged), or denied a new one. */
	private static void countDistinctEvents(Verdict verdict, List<Decision> before, Map<String, Integer> seen) {
		for (int i = 0; i < verdict.checks().size(); i++) {
			RateLimitCheck check = verdict.checks().get(i);
			Decision decision = verdict.decisions().get(i);
			if (check.policy().algorithm() != Algorithm.DISTINCT || check.cost() == 0) {
				continue;
			}
			String form = Distinct.exact(check.policy().limit()) ? "exact: " : "hyperloglog: ";
			if (!decision.allowed()) {
				seen.merge(form + "new denied", 1, Integer::sum);
			}
			else if (!verdict.allowed()) {
				seen.merge("distinct allowed, denied by another rule", 1, Integer::sum);
			}
			else {
				boolean same = decision.remaining() == before.get(i).remaining() && before.get(i).remaining() > 0;
				seen.merge(form + (same ? "seen admitted" : "new admitted"), 1, Integer::sum);
			}
		}
	}

	private static List<Decision> withoutLeases(List<Decision> decisions) {
		return decisions.stream().map((decision) -> decision.withLease(null, decision.reclaimed())).toList();
	}

	/**
	 * Asserts that every concurrency state is the same in the reference stores and in Redis: the same members with
	 * the same expiry. A set whose slots have all expired is none (a store may have forgotten it already).
	 */
	private static void assertSameLeaseSets(Map<String, RateLimitCheck> written, LocalRateLimitStore reference,
			LocalRateLimitStore unpeeked, RedisRateLimitStore lua, long now, String when) {
		for (RateLimitCheck check : written.values()) {
			if (check.policy().algorithm() == Algorithm.CONCURRENCY) {
				String key = check.policy().name() + ':' + check.subject();
				Map<String, Long> inRedis = new TreeMap<>();
				for (ScoredValue<String> slot : redis.zrangeWithScores(lua.key(check.policy(), check.subject()), 0,
						-1)) {
					inRedis.put(slot.getValue(), (long) slot.getScore());
				}
				Map<String, Long> expected = held(
						LocalStoreStates.leaseSlots(reference, check.policy(), check.subject()), now);
				assertThat(held(inRedis, now)).as("lease set of %s, %s", key, when).isEqualTo(expected);
				assertThat(held(LocalStoreStates.leaseSlots(unpeeked, check.policy(), check.subject()), now))
					.as("lease set of %s never peeked, %s", key, when)
					.isEqualTo(expected);
			}
		}
	}

	private static Map<String, Long> held(Map<String, Long> slots, long now) {
		return slots.values().stream().anyMatch((expiry) -> expiry > now) ? slots : Map.of();
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

	static long seed() {
		String configured = System.getProperty("ratelimit.differential.seed");
		return (configured != null) ? Long.parseLong(configured) : new SplittableRandom().nextLong();
	}

	/**
	 * Mostly short steps, sometimes none (a burst in one microsecond), sometimes an idle gap of minutes to days, and
	 * sometimes the clock stepping back: by up to 200 ms, up to 20 s (an NTP step), rarely up to two hours.
	 */
	static long randomStep(SplittableRandom random) {
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

	/**
	 * Returns a check of a random cost; a distinct check presents a value from a pool somewhat larger than its limit,
	 * so that values repeat and limits are reached, for exact sets and HyperLogLogs alike.
	 */
	static RateLimitCheck randomCheck(SplittableRandom random, RateLimitPolicy policy, String subject,
			boolean shadow) {
		long cost = RandomCosts.of(random, policy);
		if (policy.algorithm() != Algorithm.DISTINCT) {
			return new RateLimitCheck(policy, subject, cost, shadow);
		}
		long pool = Distinct.exact(policy.limit()) ? 2 * policy.limit() + 2 : policy.limit() + 300;
		return new RateLimitCheck(policy, subject, cost, shadow, DenialStatus.TOO_MANY_REQUESTS,
				Distinct.token("v" + random.nextLong(pool)));
	}

	static RateLimitPolicy randomPolicy(SplittableRandom random, Algorithm algorithm, String name) {
		long[] periods = { 1_000, 7_777, 100_000, 1_000_000, 3_000_000, 60_000_000, 3_600_000_000L };
		long periodMicros = periods[random.nextInt(periods.length)];
		long limit = random.nextLong(1, 40);
		if (algorithm == Algorithm.DISTINCT && random.nextInt(3) == 0) {
			// a HyperLogLog: its limit must be reachable within a window
			periodMicros = 3_600_000_000L;
			limit = random.nextLong(Distinct.EXACT_MAX_LIMIT + 1, Distinct.EXACT_MAX_LIMIT + 200);
		}
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

	/**
	 * How a test drives the Redis store.
	 *
	 * @param pipelined operations sent before their replies are checked (the lease sets are compared after each such
	 * round)
	 * @param operations operations in all
	 * @param batching the store's batching
	 */
	private record Drive(int pipelined, int operations, RedisBatching batching) {

		/** Returns this drive with a part of its operations: {@code 1 / divisor}. */
		Drive part(int divisor) {
			return new Drive(this.pipelined, this.operations / divisor, this.batching);
		}

	}

}
