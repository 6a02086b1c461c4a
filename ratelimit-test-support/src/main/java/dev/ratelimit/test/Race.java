package dev.ratelimit.test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs the same work on many threads that all start at once, for tests of what concurrent callers can do.
 */
public final class Race {

	private Race() {
	}

	/**
	 * Runs {@code work} on {@code threads} threads released together, and waits for all of them.
	 * @param threads how many threads
	 * @param work what each thread does, given its number
	 * @throws Exception what a thread threw
	 */
	public static void run(int threads, Work work) throws Exception {
		CountDownLatch start = new CountDownLatch(1);
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				int thread = t;
				workers.add(pool.submit(() -> {
					start.await();
					work.run(thread);
					return null;
				}));
			}
			start.countDown();
			for (Future<?> worker : workers) {
				worker.get();
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

	/** The work of one thread. */
	@FunctionalInterface
	public interface Work {

		void run(int thread) throws Exception;

	}

}
