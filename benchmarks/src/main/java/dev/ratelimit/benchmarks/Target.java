package dev.ratelimit.benchmarks;

import java.util.List;
import java.util.Locale;

import dev.ratelimit.benchmarks.throughput.EntryResult;
import dev.ratelimit.benchmarks.throughput.Scenario;

/**
 * A goal the throughput benchmark checks a run against (a goal, not an assertion): in one scenario, one entry's
 * metric compared with another entry's.
 *
 * @param scenario the scenario's id, e.g. {@code many-keys}
 * @param subject the entry the goal is about, e.g. {@code ours}
 * @param note what the goal relies on, shown after the subject's name (e.g. {@code deny cache}), or empty
 * @param metric what is compared
 * @param comparator how the measured value must compare with the threshold
 * @param threshold the goal's number, in the metric's unit
 * @param reference the entry the subject is compared with, e.g. {@code bucket4j}
 * @param ideal where the ideal client's own ratio comes from, for the throughput metric
 */
public record Target(String scenario, String subject, String note, Metric metric, Comparator comparator,
		double threshold, String reference, IdealRatio ideal) {

	/** The goals of issue #5, in the order the report lists them. */
	public static final List<Target> ISSUE_5 = List.of(
			throughput("many-keys", "ours", 1.0, "ideal"),
			throughput("many-keys", "ours", 1.4, "bucket4j"),
			throughput("many-keys", "ours", 4.0, "redisson"),
			throughput("hot-key", "ours-starter", 8.0, "bucket4j").withNote("deny cache"),
			throughput("hot-key", "ours-starter", 5.0, "ideal").withNote("deny cache"),
			throughput("hot-key", "ours", 8.0, "bucket4j"),
			throughput("three-rules", "ours", 0.8, Scenario.ONE_RULE_REFERENCE)
				.withIdeal(new IdealRatio("many-keys", "ideal", " (3 keys ÷ 1 key)")),
			new Target("one-thread", "ours", "", Metric.P50_MARGIN, Comparator.AT_MOST, 10, "ideal", IdealRatio.NONE));

	/**
	 * The goals of issue #14 (natural batching), in the order the report lists them: this project's limiter with its
	 * default batching against the ideal client that makes one script call per decision (its 64 threads pipelining on
	 * one auto-flushing connection), the peers, itself with one rule, and, idle, the ideal client's latency.
	 */
	public static final List<Target> ISSUE_14 = List.of(
			throughput("many-keys", "ours", 2.0, "ideal"),
			throughput("many-keys", "ours", 3.0, "bucket4j"),
			throughput("many-keys", "ours", 8.0, "redisson"),
			throughput("three-rules", "ours", 0.8, Scenario.ONE_RULE_REFERENCE)
				.withIdeal(new IdealRatio("many-keys", "ideal", " (3 keys ÷ 1 key)")),
			throughput("hot-key", "ours", 1.0, "ideal").withNote("no deny cache"),
			new Target("one-thread", "ours", "", Metric.P50_MARGIN, Comparator.AT_MOST, 10, "ideal", IdealRatio.NONE));

	/**
	 * Returns a goal on throughput: the subject's decisions per second at least {@code ratio} times the reference's,
	 * beside the ideal client's throughput divided by the same reference's.
	 */
	static Target throughput(String scenario, String subject, double ratio, String reference) {
		return new Target(scenario, subject, "", Metric.THROUGHPUT_RATIO, Comparator.AT_LEAST, ratio, reference,
				new IdealRatio(scenario, reference, ""));
	}

	Target withNote(String note) {
		return new Target(this.scenario, this.subject, note, this.metric, this.comparator, this.threshold,
				this.reference, this.ideal);
	}

	Target withIdeal(IdealRatio ideal) {
		return new Target(this.scenario, this.subject, this.note, this.metric, this.comparator, this.threshold,
				this.reference, ideal);
	}

	/** Returns the subject's name as the goal states it, e.g. {@code starter (deny cache)}. */
	String subjectName(EntryResult subject) {
		String name = subject.entry().goalName();
		return this.note.isEmpty() ? name : name + " (" + this.note + ")";
	}

	/** Returns the goal, e.g. {@code ours ≥ 1.4x bucket4j 8.19.0 (Lettuce, CAS)}. */
	String goal(EntryResult subject, EntryResult reference) {
		return switch (this.metric) {
			case THROUGHPUT_RATIO -> subjectName(subject) + " " + this.comparator.symbol + " "
					+ String.format(Locale.ROOT, "%.1fx", this.threshold) + " " + reference.entry().goalName();
			case P50_MARGIN -> subjectName(subject) + " p50 " + this.comparator.symbol + " "
					+ reference.entry().shortName() + "'s p50 + " + Format.count(this.threshold) + " µs";
		};
	}

	/** Returns the value compared with the threshold. */
	double measured(EntryResult subject, EntryResult reference) {
		return this.metric.value(subject, reference);
	}

	/** Returns whether the goal is met. */
	boolean met(EntryResult subject, EntryResult reference) {
		return this.comparator.holds(measured(subject, reference), this.threshold);
	}

	/** What a goal compares. */
	public enum Metric {

		/** The subject's decisions per second (median round) divided by the reference's. */
		THROUGHPUT_RATIO {

			@Override
			double value(EntryResult subject, EntryResult reference) {
				return subject.perSecond() / reference.perSecond();
			}

		},

		/** The subject's p50 latency minus the reference's, in microseconds. */
		P50_MARGIN {

			@Override
			double value(EntryResult subject, EntryResult reference) {
				return subject.total().latencyMicros(50) - reference.total().latencyMicros(50);
			}

		};

		abstract double value(EntryResult subject, EntryResult reference);

	}

	/** How a measured value must compare with a goal's threshold. */
	public enum Comparator {

		/** At least the threshold. */
		AT_LEAST("≥"),

		/** At most the threshold. */
		AT_MOST("≤");

		private final String symbol;

		Comparator(String symbol) {
			this.symbol = symbol;
		}

		boolean holds(double value, double threshold) {
			return (this == AT_LEAST) ? value >= threshold : value <= threshold;
		}

	}

	/**
	 * Where the ideal client's own ratio, shown beside a throughput goal, comes from: the ideal client in the
	 * goal's scenario divided by an entry of a scenario (the goal's reference in the same scenario, unless the
	 * reference has no ideal counterpart there).
	 *
	 * @param scenario the scenario of the divisor, or empty for none
	 * @param entry the divisor's entry
	 * @param note appended to the ratio, e.g. {@code " (3 keys ÷ 1 key)"}
	 */
	public record IdealRatio(String scenario, String entry, String note) {

		/** No ideal ratio. */
		static final IdealRatio NONE = new IdealRatio("", "", "");

		boolean isNone() {
			return this.scenario.isEmpty();
		}

	}

}
