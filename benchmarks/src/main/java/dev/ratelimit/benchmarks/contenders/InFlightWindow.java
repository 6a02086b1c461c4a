package dev.ratelimit.benchmarks.contenders;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Keeps several decisions in flight per load thread, for the contenders that call a non-blocking API: each
 * {@link Requests#request} starts one decision and, once {@link #depth} are in flight on its thread, waits for the
 * oldest and reports it. In steady state every call starts one decision and completes one, so the load generator's
 * count is the number of decisions (give or take {@code depth - 1} per thread still in flight when a run ends, and
 * the first {@code depth - 1} calls of a thread, which report admitted without waiting). The time a call takes is the
 * time between two completions on its thread, not the latency of a decision (about {@code depth} times that).
 *
 * @param <T> the type of a decision
 */
final class InFlightWindow<T> {

	/**
	 * Decisions in flight per thread: 64 threads x 4 = 256, enough to fill both lanes' calls to their 64 requests
	 * with as many waiting behind them, so that a batch's size is set by the store's limits, not by the callers.
	 */
	static final int DEPTH = 4;

	private final ThreadLocal<ArrayDeque<CompletableFuture<T>>> windows = ThreadLocal.withInitial(ArrayDeque::new);

	private final Predicate<T> admitted;

	/**
	 * @param admitted whether a decision admits the request
	 */
	InFlightWindow(Predicate<T> admitted) {
		this.admitted = admitted;
	}

	/**
	 * Starts a decision and reports the oldest one of this thread when {@link #DEPTH} are in flight.
	 * @param decision starts the decision
	 * @return whether the reported decision admits (true while the window fills)
	 */
	boolean request(Supplier<? extends CompletionStage<T>> decision) {
		ArrayDeque<CompletableFuture<T>> window = this.windows.get();
		window.add(decision.get().toCompletableFuture());
		if (window.size() < DEPTH) {
			return true;
		}
		return this.admitted.test(Blocking.await(window.poll()));
	}

	/** Returns how the contender keeps decisions in flight, for its description. */
	static String shape() {
		return DEPTH + " decisions in flight per load thread (each thread starts one and waits for its oldest; its "
				+ "p50/p99 are the time between two completions on a thread, not a decision's latency)";
	}

}
