package dev.ratelimit.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import dev.ratelimit.benchmarks.contenders.Contender;
import dev.ratelimit.benchmarks.contenders.Requests;
import dev.ratelimit.benchmarks.contenders.Rule;
import dev.ratelimit.benchmarks.load.Measurement;
import dev.ratelimit.benchmarks.throughput.EntryResult;
import dev.ratelimit.benchmarks.throughput.Scenario;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The targets as data: what they name exists, and a goal reads and judges as the report prints it. */
class TargetTests {

	@Test
	void everyTargetNamesAScenarioOfTheBenchmark() {
		Set<String> scenarios = Scenario.all().stream().map(Scenario::id).collect(Collectors.toSet());
		List<Target> targets = new ArrayList<>(Target.ISSUE_5);
		targets.addAll(Target.ISSUE_14);
		assertThat(targets).allSatisfy((target) -> {
			assertThat(scenarios).contains(target.scenario());
			if (!target.ideal().isNone()) {
				assertThat(scenarios).contains(target.ideal().scenario());
			}
		});
	}

	@Test
	void throughputGoalNamesThisProjectShortAndPeersByLabel() {
		Target target = Target.throughput("hot-key", "ours-starter", 8.0, "peer").withNote("deny cache");
		EntryResult starter = result(new Stub("ours-starter", "starter", Contender.Role.THIS_PROJECT), 900, 90);
		EntryResult peer = result(new Stub("peer", "peer", Contender.Role.PEER), 100, 100);
		assertThat(target.goal(starter, peer)).isEqualTo("starter (deny cache) ≥ 8.0x peer 1.0 (label)");
		assertThat(target.measured(starter, peer)).isEqualTo(9.0);
		assertThat(target.met(starter, peer)).isTrue();
		assertThat(target.met(peer, starter)).isFalse();
	}

	@Test
	void latencyGoalIsAMarginOverTheReferencesP50() {
		Target target = Target.ISSUE_5.stream()
			.filter((candidate) -> candidate.metric() == Target.Metric.P50_MARGIN)
			.findFirst()
			.orElseThrow();
		EntryResult ours = result(new Stub("ours", "ours", Contender.Role.THIS_PROJECT), 100, 95);
		EntryResult ideal = result(new Stub("ideal", "ideal client", Contender.Role.PEER), 100, 80);
		assertThat(target.goal(ours, ideal)).isEqualTo("ours p50 ≤ ideal client's p50 + 10 µs");
		assertThat(target.met(ours, ideal)).isFalse();
		assertThat(target.met(ideal, ours)).isTrue();
	}

	/** Returns a result of one round at {@code perSecond}, every request taking {@code p50Micros}. */
	private static EntryResult result(Contender contender, double perSecond, long p50Micros) {
		Histogram latency = new Histogram(3);
		latency.recordValue(p50Micros * 1_000);
		Contender.Description description = contender.description();
		Scenario.Entry entry = new Scenario.Entry(description.id(), description.label(), description.shortName(),
				contender, List.of(new Rule("api", 10)));
		return new EntryResult(entry, new Measurement(1, 1, 0, 1, latency, 0, 0, 0, 0, 0, 0), List.of(perSecond));
	}

	/** A contender that only describes itself. */
	private record Stub(String id, String shortName, Contender.Role role) implements Contender {

		@Override
		public Description description() {
			return new Description(this.id, this.shortName + " 1.0 (label)", this.shortName, this.role, "");
		}

		@Override
		public String method(int rules) {
			return "";
		}

		@Override
		public Requests prepare(List<Rule> rules, String[] subjects) {
			return (subject) -> true;
		}

		@Override
		public void close() {
		}

	}

}
