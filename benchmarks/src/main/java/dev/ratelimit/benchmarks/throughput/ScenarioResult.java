package dev.ratelimit.benchmarks.throughput;

import java.util.List;
import java.util.Optional;

/**
 * The results of one scenario, one per entry, in the order the entries were listed.
 *
 * @param scenario the scenario
 * @param entries the results
 */
public record ScenarioResult(Scenario scenario, List<EntryResult> entries) {

	/** Returns the result of an entry, e.g. {@code ours}, if it was measured. */
	public Optional<EntryResult> entry(String id) {
		return this.entries.stream().filter((result) -> result.entry().id().equals(id)).findFirst();
	}

}
