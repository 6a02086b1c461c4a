package dev.ratelimit.benchmarks.contenders;

/**
 * One rate-limiting rule of a scenario: {@code perSecond} requests per second per subject, with a burst equal to the
 * limit. Every contender translates it into its own configuration.
 *
 * @param name the rule name, part of every key
 * @param perSecond requests admitted per second and per subject (also the burst)
 */
public record Rule(String name, long perSecond) {

	/** Returns the GCRA emission interval, one second divided by the limit and rounded up, in microseconds. */
	public long intervalMicros() {
		return (1_000_000L + this.perSecond - 1) / this.perSecond;
	}

}
