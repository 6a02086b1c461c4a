package dev.ratelimit.benchmarks.throughput;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.benchmarks.contenders.Contender;
import dev.ratelimit.benchmarks.contenders.Rule;

/**
 * One situation every contender is measured in: how many threads send requests, over how many subjects, checked
 * against which rules.
 *
 * @param id name on the command line, e.g. {@code hot-key}
 * @param title heading in the report
 * @param question what the scenario shows
 * @param threads load threads
 * @param subjects distinct subjects (keys per rule); requests pick one uniformly at random
 * @param rules rules each request is checked against
 * @param oneRuleReference whether to also measure this project's limiter with only the first rule, interleaved with
 * the others, as the reference of the rules-per-request ratio
 * @param note what to know when reading the scenario's table, or empty
 */
public record Scenario(String id, String title, String question, int threads, int subjects, List<Rule> rules,
		boolean oneRuleReference, String note) {

	/** The limit of the scenarios that should admit: high enough that no request is denied. */
	public static final long ADMIT_ALL = 1_000_000;

	/**
	 * The limit of the hot key: realistic for one client (10 per second, burst 10), so nearly every request is
	 * denied, each denial with a wait of up to 100 ms (long enough for the starter's deny cache, whose default minimum
	 * is 10 ms).
	 */
	public static final long HOT_KEY_LIMIT = 10;

	/** The entry of a scenario with a one-rule reference that measures {@link #ONE_RULE_OF} with its first rule. */
	public static final String ONE_RULE_REFERENCE = "ours-1-rule";

	/** The contender a one-rule reference measures. */
	private static final String ONE_RULE_OF = "ours";

	private static final int MANY = 10_000;

	/** Returns the scenarios, in the order they run. */
	public static List<Scenario> all() {
		Rule api = new Rule("api", ADMIT_ALL);
		return List.of(
				new Scenario("one-thread", "1 thread, 10k keys",
						"the latency of one decision when nothing else runs: the round trip plus each client's own work",
						1, MANY, List.of(api), false, ""),
				new Scenario("many-keys", "64 threads, 10k keys",
						"throughput under concurrency when every request is admitted (each key sees little contention)",
						64, MANY, List.of(api), false, ""),
				new Scenario("hot-key", "64 threads, one hot key",
						"one abusive client: every thread hits one key limited to " + HOT_KEY_LIMIT
								+ " per second, so almost every request is denied",
						64, 1, List.of(new Rule("api", HOT_KEY_LIMIT)), false,
						"Every client admits about " + HOT_KEY_LIMIT + " requests per second here; the rest are "
								+ "denials, which is what this scenario measures: the cost of saying no to an abusive "
								+ "client. The starter's deny cache answers a repeated denial from memory until its "
								+ "wait ends; without it, every denial is a round trip. *admitted/s* is a little above "
								+ "the limit because each client's bucket refills its burst while the other clients "
								+ "take their turn."),
				new Scenario("three-rules", "3 rules per request, 64 threads, 10k keys",
						"a request checked against three rules (e.g. per IP, per user, per tenant), all admitting",
						64, MANY, List.of(new Rule("api-ip", ADMIT_ALL), new Rule("api-user", ADMIT_ALL),
								new Rule("api-tenant", ADMIT_ALL)),
						true,
						"The reference row is this project's limiter with only the first rule, measured in the same "
								+ "rounds; *ours ÷ this* on it is the three-rule throughput as a share of the one-rule "
								+ "throughput. The peers check the three rules with three calls (not all or nothing: an "
								+ "earlier rule has consumed when a later one denies); ours and the ideal client decide "
								+ "all three in one script call."));
	}

	/**
	 * Returns the scenarios of the {@code concurrency} command (not part of {@link #all()}): this project's limiter with
	 * a rate rule, with a concurrency rule (a lease acquired and released) and with both.
	 */
	public static List<Scenario> concurrency() {
		List<Rule> api = List.of(new Rule("api", ADMIT_ALL));
		return List.of(
				new Scenario("concurrency-one-thread", "concurrency rule, 1 thread, 10k keys",
						"the latency a concurrency rule adds: two round trips per request (acquire, release) where a "
								+ "rate rule needs one",
						1, MANY, api, false, ""),
				new Scenario("concurrency-many-keys", "concurrency rule, 64 threads, 10k keys",
						"the throughput of a concurrency rule under load, every request admitted", 64, MANY, api, false,
						""));
	}

	/** Returns the command that measures this scenario again. */
	public String command() {
		boolean concurrency = concurrency().stream().anyMatch((scenario) -> scenario.id().equals(this.id));
		return concurrency ? "benchmarks/run.sh concurrency" : "benchmarks/run.sh throughput " + this.id;
	}

	/** Returns the subjects, 16 characters each (e.g. {@code user-00000000042}). */
	public String[] subjectNames() {
		String[] names = new String[this.subjects];
		for (int i = 0; i < this.subjects; i++) {
			names[i] = String.format(Locale.ROOT, "user-%011d", i);
		}
		return names;
	}

	/** Returns what to measure: every contender with the scenario's rules, and the one-rule reference if any. */
	public List<Entry> entries(List<Contender> contenders) {
		List<Entry> entries = new ArrayList<>();
		for (Contender contender : contenders) {
			Contender.Description description = contender.description();
			entries.add(new Entry(description.id(), description.label(), description.shortName(), contender,
					this.rules));
			if (this.oneRuleReference && description.id().equals(ONE_RULE_OF)) {
				entries.add(new Entry(ONE_RULE_REFERENCE, description.label() + ", 1 rule (reference)",
						description.shortName() + " with 1 rule", contender, this.rules.subList(0, 1)));
			}
		}
		return entries;
	}

	/**
	 * One contender with the rules it is measured with.
	 *
	 * @param id identifier in the results, e.g. {@code ours} or {@code ours-1-rule}
	 * @param label name in tables
	 * @param shortName name in prose, e.g. {@code ours with 1 rule}
	 * @param contender the contender
	 * @param rules the rules each request is checked against
	 */
	public record Entry(String id, String label, String shortName, Contender contender, List<Rule> rules) {

		/** Returns what one decision costs this entry. */
		public String method() {
			return this.contender.method(this.rules.size());
		}

		/** Returns whether this is one of this project's contenders with the scenario's rules (shown in bold). */
		public boolean highlighted() {
			Contender.Description description = this.contender.description();
			return description.role() == Contender.Role.THIS_PROJECT && this.id.equals(description.id());
		}

		/**
		 * Returns the name a goal gives this entry: this project's entries by their short name, the others by their
		 * label (a peer's version matters).
		 */
		public String goalName() {
			return (this.contender.description().role() == Contender.Role.THIS_PROJECT) ? this.shortName : this.label;
		}

	}

}
