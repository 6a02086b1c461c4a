package dev.ratelimit.actuate;

import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.CalendarPeriod;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.actuate.RateLimitsEndpoint.NodeDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.RateLimitsDescriptor;
import dev.ratelimit.actuate.RateLimitsEndpoint.SubjectDescriptor;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.resilience.StoreStatus;
import dev.ratelimit.rule.RateLimitRule;
import dev.ratelimit.rule.RateLimitRules;
import dev.ratelimit.rule.RuleOverrideRepository;
import dev.ratelimit.store.RateLimitStore;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.test.MutableClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.EnumSource.Mode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * Inspecting a subject through the {@code ratelimits} endpoint, on the local store and an explicit clock.
 */
class RateLimitsEndpointTests {

	private final MutableClock clock = MutableClock.atRealisticEpoch();

	private final LocalRateLimitStore store = new LocalRateLimitStore(1_000, this.clock);

	@Test
	void inspectingASubjectWhoseQuotaCameBackMeanwhileConsumesNothing() {
		RateLimitPolicy policy = RateLimitPolicy.of("login", Algorithm.SLIDING_WINDOW_LOG, 2, Duration.ofSeconds(10));
		assertThat(request(policy).allowed()).isTrue();
		this.clock.advance(Duration.ofSeconds(5));
		assertThat(request(policy).allowed()).isTrue();
		// one microsecond before the first entry is forgotten: exhausted when the inspection starts, and a unit back
		// by the time it asks what a request of cost 1 would get
		this.clock.advance(Duration.ofSeconds(5).minusNanos(1_000));
		RateLimitsEndpoint endpoint = endpoint(policy, new TimePassingStore(this.store, this.clock));
		SubjectDescriptor inspected = endpoint.subject("login", new String[] { "alice" }, null);
		assertThat(inspected.remaining()).isZero();
		assertThat(inspected.retryAfter()).isEqualTo("PT0S");
		Decision next = request(policy);
		assertThat(next.allowed()).as("the unit that came back is still there after the inspection").isTrue();
		assertThat(next.remaining()).isZero();
	}

	@ParameterizedTest
	@EnumSource(value = Algorithm.class, mode = Mode.EXCLUDE, names = "DISTINCT")
	void retryAfterOfAnExhaustedSubjectIsTheWaitOfARequestOfCostOne(Algorithm algorithm) {
		RateLimitPolicy policy = RateLimitPolicy.of("login", algorithm, 3, Duration.ofSeconds(10));
		for (int i = 0; i < 3; i++) {
			this.clock.advance(Duration.ofMillis(1_234));
			assertThat(request(policy).allowed()).isTrue();
		}
		SubjectDescriptor inspected = endpoint(policy, this.store).subject("login", new String[] { "alice" }, null);
		assertThat(inspected.remaining()).isZero();
		Decision denied = request(policy);
		assertThat(denied.allowed()).isFalse();
		assertThat(Duration.parse(inspected.retryAfter())).isEqualTo(denied.retryAfter());
		assertThat(Duration.parse(inspected.resetAfter())).isEqualTo(denied.resetAfter());
	}

	@Test
	void aConcurrencySubjectShowsItsLeasesWithoutAcquiringOrReclaimingAny() {
		RateLimitPolicy policy = RateLimitPolicy.concurrency("uploads", 4, Duration.ofSeconds(10));
		assertThat(request(policy).lease()).isNotNull();
		this.clock.advance(Duration.ofSeconds(4));
		assertThat(this.store.evaluate(List.of(RateLimitCheck.of(policy, "alice", 2))).get(0).lease()).isNotNull();
		// the first lease expires unreleased while the second is held
		this.clock.advance(Duration.ofSeconds(7));
		RateLimitsEndpoint endpoint = endpoint(policy, this.store);
		SubjectDescriptor inspected = endpoint.subject("uploads", new String[] { "alice" }, null);
		assertThat(inspected.limit()).isEqualTo(4);
		assertThat(inspected.remaining()).isEqualTo(2);
		assertThat(inspected.leases()).isEqualTo(new RateLimitsEndpoint.LeasesDescriptor(2, 1L, "PT3S", "PT10S"));
		assertThat(endpoint.subject("uploads", new String[] { "alice" }, null)).as("nothing acquired nor reclaimed")
			.isEqualTo(inspected);
		Decision next = request(policy);
		assertThat(next.reclaimed()).as("the expired slot is still there for the next admission").isOne();
		assertThat(next.remaining()).isOne();
		RateLimitPolicy rate = RateLimitPolicy.of("login", Algorithm.GCRA, 3, Duration.ofSeconds(10));
		assertThat(endpoint(rate, this.store).subject("login", new String[] { "alice" }, null).leases()).isNull();
	}

	/** A calendar quota shows what is used and when its window ends, before and after anything is used. */
	@Test
	void aCalendarQuotaShowsItsUsedUnitsAndWhenItResets() {
		ZoneId berlin = ZoneId.of("Europe/Berlin");
		RateLimitPolicy policy = RateLimitPolicy.calendar("daily", 10, CalendarPeriod.of(CalendarPeriod.Unit.DAY, berlin));
		this.clock.setMicros(LocalDateTime.parse("2026-10-25T23:59:59").atZone(berlin).toEpochSecond() * 1_000_000L);
		String midnight = LocalDateTime.parse("2026-10-26T00:00").atZone(berlin).toInstant().toString();
		RateLimitsEndpoint endpoint = endpoint(policy, this.store);
		SubjectDescriptor unused = endpoint.subject("daily", new String[] { "alice" }, null);
		assertThat(unused.used()).isZero();
		assertThat(unused.resetsAt()).isEqualTo(midnight);
		for (int i = 0; i < 3; i++) {
			request(policy);
		}
		SubjectDescriptor used = endpoint.subject("daily", new String[] { "alice" }, null);
		assertThat(used.used()).isEqualTo(3);
		assertThat(used.remaining()).isEqualTo(7);
		assertThat(used.resetsAt()).isEqualTo(midnight);
		assertThat(used.resetAfter()).isEqualTo("PT1S");
		assertThat(endpoint.subject("daily", new String[] { "alice" }, null)).as("reading spends nothing")
			.isEqualTo(used);
	}

	@Test
	void aStoreOnOneServerShowsNoNodes() {
		RateLimitPolicy policy = RateLimitPolicy.of("login", Algorithm.GCRA, 3, Duration.ofSeconds(10));
		RateLimitsDescriptor described = endpoint(policy, this.store).rateLimits();
		assertThat(described.state()).isEqualTo("local");
		assertThat(described.nodes()).isNull();
	}

	@Test
	void aRedisClusterShowsEachMasterBesideTheSummedUpStateAndCircuit() {
		StoreStatus cluster = FixedStoreStatus.clusterWithOneFailedMaster();
		RateLimitPolicy policy = RateLimitPolicy.of("login", Algorithm.GCRA, 3, Duration.ofSeconds(10));
		RateLimitRule rule = RateLimitRule.builder("login", policy).key((request) -> request.getRemoteAddr()).build();
		RateLimitsDescriptor described = new RateLimitsEndpoint(new RateLimitRules(List.of(rule)),
				new StoreRateLimiter(this.store), cluster, this.store, RuleOverrideRepository.inMemory(), null, "redis")
			.rateLimits();
		assertThat(described.state()).isEqualTo("partial");
		assertThat(described.circuit()).isEqualTo("open");
		assertThat(described.nodes()).containsExactly(
				entry("a1", new NodeDescriptor("127.0.0.1:7001 slots 0-5460", "redis", "closed")),
				entry("b2", new NodeDescriptor("127.0.0.1:7002 slots 5461-10921", "fallback", "open")));
	}

	private Decision request(RateLimitPolicy policy) {
		return this.store.evaluate(List.of(RateLimitCheck.of(policy, "alice"))).get(0);
	}

	private RateLimitsEndpoint endpoint(RateLimitPolicy policy, RateLimitStore inspected) {
		RateLimitRule rule = RateLimitRule.builder(policy.name(), policy)
			.key((request) -> request.getRemoteAddr())
			.build();
		return new RateLimitsEndpoint(new RateLimitRules(List.of(rule)), new StoreRateLimiter(this.store),
				StoreStatus.local(), inspected, RuleOverrideRepository.inMemory(), null, "local");
	}

	/** A store on which every call takes one microsecond of the clock, as calls to a real store take time. */
	private record TimePassingStore(RateLimitStore delegate, MutableClock clock) implements RateLimitStore {

		@Override
		public List<Decision> evaluate(List<RateLimitCheck> checks) {
			List<Decision> decisions = this.delegate.evaluate(checks);
			this.clock.advanceMicros(1);
			return decisions;
		}

		@Override
		public List<Decision> peek(List<RateLimitCheck> checks) {
			List<Decision> decisions = this.delegate.peek(checks);
			this.clock.advanceMicros(1);
			return decisions;
		}

		@Override
		public void reset(RateLimitPolicy policy, String subject) {
			this.delegate.reset(policy, subject);
		}

	}

}
