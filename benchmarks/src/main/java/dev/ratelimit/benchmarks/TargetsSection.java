package dev.ratelimit.benchmarks;

import java.util.List;
import java.util.Optional;

import dev.ratelimit.benchmarks.throughput.EntryResult;
import dev.ratelimit.benchmarks.throughput.ScenarioResult;

/**
 * The report's table of {@link Target targets}: each goal judged on the median rounds, with the range of single
 * round comparisons, the same comparison by CPU cost, and what the ideal client reached in it.
 */
final class TargetsSection {

	private TargetsSection() {
	}

	/** Appends one row per target whose scenario and entries were measured. */
	static void write(StringBuilder out, List<Target> targets, List<ScenarioResult> results) {
		out.append("| scenario | goal | measured | | rounds | by CPU cost | ideal client's ratio |\n"
				+ "| --- | --- | ---: | --- | ---: | ---: | ---: |\n");
		for (Target target : targets) {
			Optional<ScenarioResult> result = find(results, target.scenario());
			Optional<EntryResult> subject = result.flatMap((r) -> r.entry(target.subject()));
			Optional<EntryResult> reference = result.flatMap((r) -> r.entry(target.reference()));
			if (subject.isPresent() && reference.isPresent()) {
				out.append(row(target, result.get(), subject.get(), reference.get(), results));
			}
		}
		out.append('\n');
	}

	private static String row(Target target, ScenarioResult result, EntryResult subject, EntryResult reference,
			List<ScenarioResult> results) {
		StringBuilder row = new StringBuilder();
		row.append("| ").append(result.scenario().title()).append(" | ").append(target.goal(subject, reference))
			.append(" | ");
		String verdict = target.met(subject, reference) ? "met" : "**missed**";
		switch (target.metric()) {
			case THROUGHPUT_RATIO -> row.append(Format.ratio(target.measured(subject, reference))).append(" | ")
				.append(verdict).append(" | ").append(roundRange(subject, reference)).append(" | ")
				.append(Format.ratio(reference.cpuMicrosPerDecision() / subject.cpuMicrosPerDecision())).append(" | ")
				.append(idealRatio(target, result, results)).append(" |\n");
			case P50_MARGIN -> row.append(Format.micros(subject.total().latencyMicros(50))).append(" µs vs ")
				.append(Format.micros(reference.total().latencyMicros(50))).append(" + ")
				.append(Format.count(target.threshold())).append(" µs | ").append(verdict).append(" | | | |\n");
		}
		return row.toString();
	}

	/** Returns the lowest and highest ratio of round k of one entry to round k of another. */
	private static String roundRange(EntryResult subject, EntryResult reference) {
		int rounds = Math.min(subject.roundRates().size(), reference.roundRates().size());
		double low = Double.MAX_VALUE;
		double high = 0;
		for (int k = 0; k < rounds; k++) {
			double ratio = subject.roundRates().get(k) / reference.roundRates().get(k);
			low = Math.min(low, ratio);
			high = Math.max(high, ratio);
		}
		return (rounds == 0) ? "–" : Format.ratio(low) + "–" + Format.ratio(high);
	}

	/** Returns the ideal client's throughput divided by the target's {@link Target.IdealRatio divisor}. */
	private static String idealRatio(Target target, ScenarioResult result, List<ScenarioResult> results) {
		Target.IdealRatio ideal = target.ideal();
		if (ideal.isNone()) {
			return "";
		}
		Optional<EntryResult> dividend = result.entry("ideal");
		Optional<EntryResult> divisor = find(results, ideal.scenario()).flatMap((r) -> r.entry(ideal.entry()));
		if (dividend.isEmpty() || divisor.isEmpty()) {
			return "–";
		}
		return Format.ratio(dividend.get().perSecond() / divisor.get().perSecond()) + ideal.note();
	}

	static Optional<ScenarioResult> find(List<ScenarioResult> results, String id) {
		return results.stream().filter((r) -> r.scenario().id().equals(id)).findFirst();
	}

}
