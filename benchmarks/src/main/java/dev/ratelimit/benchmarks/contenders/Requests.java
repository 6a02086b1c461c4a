package dev.ratelimit.benchmarks.contenders;

/**
 * One request of a scenario as a contender decides it: every rule of the scenario checked for one subject.
 * Implementations are called by many threads at once and block until the decision is known.
 */
@FunctionalInterface
public interface Requests {

	/**
	 * Decides one request.
	 * @param subject the index of the subject in the scenario's subjects
	 * @return whether the request is admitted (by every rule)
	 */
	boolean request(int subject);

}
