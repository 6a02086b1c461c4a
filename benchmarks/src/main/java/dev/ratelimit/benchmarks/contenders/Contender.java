package dev.ratelimit.benchmarks.contenders;

import java.util.List;

/**
 * A rate limiter measured by the throughput benchmark. Each contender owns its client (connections, threads) for the
 * whole run and keeps its state under its own key names, so contenders can share one Redis without seeing each
 * other's keys.
 */
public interface Contender extends AutoCloseable {

	/** How this contender names and describes itself in the report. */
	Description description();

	/** One sentence on what one decision costs this contender (round trips, commands), for the report. */
	String method(int rules);

	/**
	 * Prepares a scenario (e.g. creates per-key configuration) and returns how it decides one request.
	 * @param rules the rules every request is checked against (all rules share one rate in every scenario)
	 * @param subjects the subjects requests are for
	 * @return the requests, safe for concurrent use
	 */
	Requests prepare(List<Rule> rules, String[] subjects);

	@Override
	void close();

	/**
	 * How a contender names and describes itself in the report.
	 *
	 * @param id short identifier used on the command line and in the results, e.g. {@code ours}
	 * @param label name shown in tables, e.g. {@code bucket4j 8.19.0 (Lettuce, CAS)}
	 * @param shortName name for prose and column headings, e.g. {@code bucket4j} or {@code ours}
	 * @param role what the contender is in the comparison
	 * @param configuration how it is set up (client, connections, options), for the report's table of clients
	 */
	record Description(String id, String label, String shortName, Role role, String configuration) {
	}

	/** What a contender is in the comparison. */
	enum Role {

		/** This project's limiter: the rows the report is about, compared with every other. */
		THIS_PROJECT,

		/** A measurement that explains this project's numbers (e.g. its script without its Java layer). */
		DIAGNOSTIC,

		/** Another client this project is compared with: a peer library or the ideal client. */
		PEER

	}

}
