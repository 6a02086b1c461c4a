package dev.ratelimit.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.CalendarPeriod.Unit;
import dev.ratelimit.Consumption;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.Settlement;
import dev.ratelimit.Verdict;
import dev.ratelimit.algorithm.CalendarWindow;
import dev.ratelimit.algorithm.FixedWindow;
import dev.ratelimit.algorithm.Outcome;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.LettuceFactories;
import dev.ratelimit.test.redis.RedisEndpoint;
import dev.ratelimit.test.redis.RedisStandaloneTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Binds the calendar windows of {@code ratelimit.lua} (algorithm 9, boundaries given by the caller) to the Java
 * reference ({@code CalendarWindow}, java.time): random evaluations, peeks, refunds and settlements (charges into debt
 * too) of day, week and month quotas in several zones, on a clock driven by the test across both days of 2026 on which
 * Berlin's clocks change and across month ends, stepping forward by seconds to hours, landing on boundaries and a
 * microsecond either side of them, and sometimes stepping back. Then the same with the boundaries computed around a
 * clock that is hours off the script's time, as an application's clock may be off Redis's; and once on Redis's own
 * clock.
 * <p>
 * Each start runs until its clock has covered 30 hours (some thousands of operations); the test of a clock that is
 * off runs {@code ratelimit.differential.operations} (default 100,000) / 20 operations. Seed:
 * {@code ratelimit.differential.seed} (default random, printed on failure).
 */
@RedisStandaloneTest
class CalendarDifferentialIntegrationTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	private static final int OPERATIONS = Integer.getInteger("ratelimit.differential.operations", 100_000) / 20;

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

	/**
	 * Starts four hours before Berlin's 23-hour day, its 25-hour day, an ordinary month's end and February's end, and
	 * runs past the end of that day (at least 30 hours).
	 */
	@ParameterizedTest
	@ValueSource(strings = { "2026-03-28T20:00", "2026-10-24T20:00", "2026-06-29T20:00", "2026-02-27T20:00" })
	void scriptMatchesReferenceAcrossClockChangesAndMonthEnds(String start) {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		List<RateLimitPolicy> policies = policies(random);
		MutableClock clock = new MutableClock(micros(LocalDateTime.parse(start), BERLIN));
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000_000, clock, new LeaseIds("c"));
		RedisRateLimitStore lua = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"cal-" + Long.toHexString(seed), Duration.ofSeconds(30), clock::micros, new LeaseIds("c"),
				RedisBatching.OFF);
		lua.loadScripts();
		Map<String, RateLimitCheck> written = new LinkedHashMap<>();
		List<Consumption> consumptions = new ArrayList<>();
		Map<String, Integer> seen = new TreeMap<>();
		long until = clock.micros() + Duration.ofHours(30).toNanos() / 1_000;
		for (int done = 0; clock.micros() < until; done++) {
			long step = step(random, clock.micros(), policies);
			if (step < 0) {
				forgetStaleStates(written, reference, lua);
			}
			clock.advanceMicros(step);
			String operation = "seed " + seed + ", operation " + done + " at "
					+ java.time.Instant.ofEpochSecond(0, clock.micros() * 1_000).atZone(BERLIN);
			int kind = random.nextInt(100);
			if (kind < 8 && !consumptions.isEmpty()) {
				List<Consumption> refunded = List.of(consumptions.remove(random.nextInt(consumptions.size())));
				assertThat(lua.refund(refunded)).as("%s, refund %s", operation, refunded)
					.isEqualTo(reference.refund(refunded));
				seen.merge("refund", 1, Integer::sum);
				continue;
			}
			if (kind < 16 && !consumptions.isEmpty()) {
				Consumption consumption = consumptions.remove(random.nextInt(consumptions.size()));
				List<Settlement> settled = List.of(new Settlement(consumption,
						LuaDifferentialIntegrationTests.randomActualCost(random, consumption)));
				List<Decision> expected = reference.settle(settled);
				assertThat(lua.settle(settled)).as("%s, settle %s", operation, settled).isEqualTo(expected);
				written.put(consumption.policy().name() + ':' + consumption.subject(), settled.get(0).inspection());
				long difference = settled.get(0).difference();
				seen.merge((difference > 0) ? (expected.get(0).allowed() ? "charged" : "charged into debt")
						: "settled", 1, Integer::sum);
				continue;
			}
			RateLimitPolicy policy = policies.get(random.nextInt(policies.size()));
			RateLimitCheck check = new RateLimitCheck(policy, "s" + random.nextInt(3), random.nextLong(0, 4), false);
			List<RateLimitCheck> request = List.of(check);
			if (kind < 26) {
				assertThat(lua.peek(request)).as("%s, peek %s", operation, request).isEqualTo(reference.peek(request));
				continue;
			}
			List<Decision> expected = reference.evaluate(request);
			assertThat(lua.evaluate(request)).as("%s: %s", operation, request).isEqualTo(expected);
			written.put(policy.name() + ':' + check.subject(), check);
			Verdict verdict = new Verdict(request, expected);
			consumptions.addAll(verdict.consumptions());
			while (consumptions.size() > 16) {
				consumptions.remove(0);
			}
			seen.merge(expected.get(0).allowed() ? "allowed" : "denied", 1, Integer::sum);
		}
		assertThat(seen).as("seed %d", seed)
			.containsKeys("allowed", "denied", "refund", "charged", "charged into debt", "settled");
	}

	/**
	 * The boundaries computed around a clock up to six hours off the script's time (never more than a day: every
	 * window here is at least 23 hours), raw script calls against the reference applied at the script's time.
	 */
	@Test
	void scriptFindsItsWindowAmongBoundariesComputedAroundAClockThatIsOff() throws IOException {
		long seed = LuaDifferentialIntegrationTests.seed();
		SplittableRandom random = new SplittableRandom(seed);
		String script = source();
		List<CalendarPeriod> calendars = List.of(CalendarPeriod.of(Unit.DAY, BERLIN),
				CalendarPeriod.of(Unit.MONTH, BERLIN), new CalendarPeriod(Unit.WEEK, BERLIN, DayOfWeek.SUNDAY));
		Map<String, FixedWindow.State> states = new HashMap<>();
		long now = micros(LocalDateTime.parse("2026-10-24T18:00"), BERLIN);
		int crossed = 0;
		for (int done = 0; done < OPERATIONS; done++) {
			now += random.nextLong(0, 600_000_000L);
			long skew = random.nextLong(-6 * 3_600_000_000L, 6 * 3_600_000_000L);
			int c = random.nextInt(calendars.size());
			CalendarPeriod calendar = calendars.get(c);
			long limit = 5 + c;
			long cost = random.nextLong(0, 3);
			String key = "skew-" + Long.toHexString(seed) + ":" + c;
			if (calendar.windowStart(now) != calendar.windowStart(now + skew)) {
				crossed++;
			}
			CalendarWindow reference = new CalendarWindow(calendar, limit);
			Outcome<FixedWindow.State> outcome = reference.apply(states.get(key), now, cost);
			if (outcome.allowed() && cost > 0) {
				states.put(key, outcome.state());
			}
			StringBuilder boundaries = new StringBuilder();
			for (long boundary : calendar.boundaries(now + skew)) {
				boundaries.append(boundaries.isEmpty() ? "" : " ").append(boundary);
			}
			List<Object> reply = redis.eval(script, ScriptOutputType.MULTI, new String[] { key }, Long.toString(now),
					"", "9", "0", Long.toString(limit), boundaries.toString(), Long.toString(cost), "0", "0");
			String operation = "seed " + seed + ", operation " + done + ", skew " + skew + " µs";
			assertThat(reply.subList(0, 6)).as(operation)
				.containsExactly(outcome.allowed() ? 1L : 0L, now, outcome.allowed() ? 1L : 0L, outcome.remaining(),
						outcome.resetAfterMicros(), outcome.retryAfterMicros());
		}
		assertThat(crossed).as("calls whose clock was in another window than the script's").isPositive();
	}

	@Test
	void scriptRefusesBoundariesThatDoNotHoldItsTime() throws IOException {
		CalendarPeriod days = CalendarPeriod.of(Unit.DAY, BERLIN);
		long now = micros(LocalDateTime.parse("2026-06-17T12:00"), BERLIN);
		StringBuilder boundaries = new StringBuilder();
		for (long boundary : days.boundaries(now + Duration.ofDays(2).toNanos() / 1_000)) {
			boundaries.append(boundaries.isEmpty() ? "" : " ").append(boundary);
		}
		String script = source();
		assertThatExceptionOfType(RuntimeException.class)
			.isThrownBy(() -> redis.eval(script, ScriptOutputType.MULTI, new String[] { "refused" },
					Long.toString(now), "", "9", "0", "5", boundaries.toString(), "1", "0", "0"))
			.withMessageContaining("do not hold the time");
	}

	/** On Redis's own clock, the boundaries computed around this JVM's: the reset is the next local midnight. */
	@Test
	void onRedisClockTheResetIsTheNextLocalMidnight() {
		RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(factory), "cal-real",
				Duration.ofSeconds(5));
		ZoneId zone = ZoneId.of("Pacific/Auckland");
		RateLimitPolicy policy = RateLimitPolicy.calendar("daily", 10, CalendarPeriod.of(Unit.DAY, zone));
		Decision decision = store.evaluate(List.of(new RateLimitCheck(policy, "s", 1, false))).get(0);
		ZonedDateTime midnight = ZonedDateTime.now(zone).toLocalDate().plusDays(1).atStartOfDay(zone);
		long expectedMillis = Duration.between(ZonedDateTime.now(zone), midnight).toMillis();
		assertThat(decision.allowed()).isTrue();
		assertThat(decision.remaining()).isEqualTo(9);
		assertThat(decision.resetAfter().toMillis()).isBetween(expectedMillis - 5_000, expectedMillis + 5_000);
	}

	private static List<RateLimitPolicy> policies(SplittableRandom random) {
		List<RateLimitPolicy> policies = new ArrayList<>();
		policies.add(RateLimitPolicy.calendar("day", random.nextLong(1, 30), CalendarPeriod.of(Unit.DAY, BERLIN)));
		policies.add(RateLimitPolicy.calendar("month", random.nextLong(20, 90), CalendarPeriod.of(Unit.MONTH, BERLIN)));
		policies.add(RateLimitPolicy.calendar("week", random.nextLong(10, 60),
				new CalendarPeriod(Unit.WEEK, BERLIN, DayOfWeek.SUNDAY)));
		policies.add(RateLimitPolicy.calendar("day-utc", random.nextLong(1, 30),
				CalendarPeriod.of(Unit.DAY, ZoneId.of("UTC"))));
		policies.add(RateLimitPolicy.calendar("day-ny", random.nextLong(1, 30),
				CalendarPeriod.of(Unit.DAY, ZoneId.of("America/New_York"))));
		return policies;
	}

	/**
	 * Mostly seconds, sometimes up to twenty minutes, sometimes to the next window boundary of one of the policies (if
	 * it is less than an hour away) or a microsecond either side of it, sometimes back by up to half an hour.
	 */
	private static long step(SplittableRandom random, long now, List<RateLimitPolicy> policies) {
		int kind = random.nextInt(100);
		if (kind < 85) {
			return random.nextLong(0, 15_000_000L);
		}
		if (kind < 88) {
			return random.nextLong(10_000_000L, 1_200_000_000L);
		}
		if (kind < 98) {
			CalendarPeriod calendar = policies.get(random.nextInt(policies.size())).calendar();
			long next = calendar.nextStart(calendar.windowStart(now));
			return (next - now < 3_600_000_000L) ? next + random.nextLong(-1, 2) - now : random.nextLong(0, 10_000_000L);
		}
		return -random.nextLong(1, 1_800_000_000L);
	}

	/** As in LuaDifferentialIntegrationTests: before the clock steps back, states that count nothing are forgotten. */
	private static void forgetStaleStates(Map<String, RateLimitCheck> written, LocalRateLimitStore reference,
			RedisRateLimitStore lua) {
		for (Iterator<RateLimitCheck> each = written.values().iterator(); each.hasNext();) {
			RateLimitCheck check = each.next();
			Decision inspected = reference.peek(List.of(new RateLimitCheck(check.policy(), check.subject(), 0, false)))
				.get(0);
			if (inspected.resetAfter().isZero()) {
				reference.reset(check.policy(), check.subject());
				lua.reset(check.policy(), check.subject());
				each.remove();
			}
		}
	}

	private static String source() throws IOException {
		try (InputStream in = CalendarDifferentialIntegrationTests.class.getClassLoader()
			.getResourceAsStream(RateLimitScript.GENERAL)) {
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	private static long micros(LocalDateTime local, ZoneId zone) {
		return local.atZone(zone).toEpochSecond() * 1_000_000L;
	}

}
