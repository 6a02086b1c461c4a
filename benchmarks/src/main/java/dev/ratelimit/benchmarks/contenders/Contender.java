package dev.ratelimit.benchmarks.contenders;

import java.util.List;

/**
 * A rate limiter measured by the throughput benchmark. Each contender owns its client (connections, threads) for the
 * whole run and keeps its state under its own key names, so contenders can share one Redis without seeing each
 * other's keys.
 */
public interface Contender extends AutoCloseable {

	/** Short identifier used on the command line and in the report, e.g. {@code ours}. */
	String id();

	/** Name shown in tables, e.g. {@code bucket4j 8.19.0 (Lettuce, CAS)}. */
	String label();

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

}
