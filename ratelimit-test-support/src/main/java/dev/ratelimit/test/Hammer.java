package dev.ratelimit.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;

/**
 * Load for a limited time: threads that each make decisions as fast as they can until the time is up, counting the
 * decisions and the admissions. A load test measures against the clock by nature: the run's measured length is part
 * of the result, so that a bound computed from it holds however late the threads started or stopped.
 */
public final class Hammer {

	private Hammer() {
	}

	/**
	 * Runs the threads for the given time.
	 * @param threads how many threads
	 * @param run how long each keeps deciding
	 * @param decision the decision of thread {@code i}: {@code true} when admitted
	 * @return what the run admitted and decided, and how long it lasted
	 * @throws Exception when a thread failed
	 */
	public static Run run(int threads, Duration run, IntFunction<BooleanSupplier> decision) throws Exception {
		AtomicLong admitted = new AtomicLong();
		AtomicLong decisions = new AtomicLong();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			long started = System.nanoTime();
			long deadline = started + run.toNanos();
			for (int i = 0; i < threads; i++) {
				BooleanSupplier decide = decision.apply(i);
				workers.add(pool.submit(() -> {
					while (System.nanoTime() < deadline) {
						if (decide.getAsBoolean()) {
							admitted.incrementAndGet();
						}
						decisions.incrementAndGet();
					}
				}));
			}
			for (Future<?> worker : workers) {
				worker.get(run.toSeconds() + 60, TimeUnit.SECONDS);
			}
			return new Run(admitted.get(), decisions.get(), System.nanoTime() - started);
		}
		finally {
			pool.shutdown();
		}
	}

	/**
	 * What a run admitted and decided, and how long it lasted, from before the first decision to after the last.
	 * @param admitted the decisions that admitted
	 * @param decisions all decisions
	 * @param nanos the run's length
	 */
	public record Run(long admitted, long decisions, long nanos) {
	}

}
