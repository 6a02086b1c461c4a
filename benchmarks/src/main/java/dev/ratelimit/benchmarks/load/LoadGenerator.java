package dev.ratelimit.benchmarks.load;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import dev.ratelimit.benchmarks.contenders.Requests;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load generator: {@code threads} platform threads each send one request, wait for its decision, and
 * send the next, until a fixed duration has passed. Each request is for a subject drawn uniformly at random (per
 * thread, seeded) among the scenario's subjects. Every thread counts into its own counters and its own HdrHistogram,
 * merged at the end, so measuring adds no contention. This is a saturation test: the throughput is what the
 * threads achieved, and latency is the time each call took at that throughput (including waiting behind the other
 * threads' requests), not the response time of requests arriving at a fixed rate.
 */
public final class LoadGenerator {

	private static final long HIGHEST_NANOS = Duration.ofSeconds(30).toNanos();

	private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

	private LoadGenerator() {
	}

	/**
	 * Runs the load.
	 * @param requests what one request does
	 * @param threads number of threads
	 * @param subjects number of subjects (1 means every request is for subject 0)
	 * @param duration how long to send requests; a thread finishes its request in flight when it ends
	 * @param seed seed of the subjects' random choice
	 * @return what was measured
	 */
	public static Measurement run(Requests requests, int threads, int subjects, Duration duration, long seed) {
		CountDownLatch ready = new CountDownLatch(threads);
		CountDownLatch start = new CountDownLatch(1);
		AtomicReference<Throwable> firstError = new AtomicReference<>();
		List<Worker> workers = new ArrayList<>(threads);
		for (int i = 0; i < threads; i++) {
			Worker worker = new Worker(requests, subjects, new SplittableRandom(seed * 1_000 + i), ready, start,
					firstError);
			workers.add(worker);
		}
		List<Thread> running = new ArrayList<>(threads);
		for (int i = 0; i < threads; i++) {
			Thread thread = new Thread(workers.get(i), "load-" + i);
			thread.setDaemon(true);
			running.add(thread);
			thread.start();
		}
		await(ready);
		long begin = System.nanoTime();
		long deadline = begin + duration.toNanos();
		workers.forEach((worker) -> worker.deadline = deadline);
		start.countDown();
		for (Thread thread : running) {
			try {
				thread.join();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		long end = workers.stream().mapToLong((worker) -> worker.finished).max().orElse(deadline);
		Histogram latency = new Histogram(HIGHEST_NANOS, 3);
		long total = 0;
		long admitted = 0;
		long errors = 0;
		long callerCpuNanos = 0;
		for (Worker worker : workers) {
			callerCpuNanos += worker.cpuNanos;
			latency.add(worker.latency);
			total += worker.completed;
			admitted += worker.admitted;
			errors += worker.errors;
		}
		if (firstError.get() != null) {
			System.err.println("First of " + errors + " failed requests:");
			firstError.get().printStackTrace();
		}
		return new Measurement(total, admitted, errors, end - begin, latency, 0, 0, callerCpuNanos / 1_000, 0, 0, 0);
	}

	private static void await(CountDownLatch latch) {
		try {
			latch.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** One thread of load, with its own counters. */
	private static final class Worker implements Runnable {

		private final Requests target;

		private final int subjects;

		private final SplittableRandom random;

		private final CountDownLatch ready;

		private final CountDownLatch start;

		private final AtomicReference<Throwable> firstError;

		private final Histogram latency = new Histogram(HIGHEST_NANOS, 3);

		private volatile long deadline;

		private long completed;

		private long admitted;

		private long errors;

		private volatile long finished;

		/** CPU time this thread used while sending requests (its share of the callers' CPU). */
		private volatile long cpuNanos;

		Worker(Requests requests, int subjects, SplittableRandom random, CountDownLatch ready, CountDownLatch start,
				AtomicReference<Throwable> firstError) {
			this.target = requests;
			this.subjects = subjects;
			this.random = random;
			this.ready = ready;
			this.start = start;
			this.firstError = firstError;
		}

		@Override
		public void run() {
			this.ready.countDown();
			await(this.start);
			long cpuBefore = THREADS.getCurrentThreadCpuTime();
			long end = this.deadline;
			long now = System.nanoTime();
			while (now < end) {
				int subject = (this.subjects == 1) ? 0 : this.random.nextInt(this.subjects);
				long before = now;
				try {
					if (this.target.request(subject)) {
						this.admitted++;
					}
				}
				catch (RuntimeException ex) {
					this.errors++;
					this.firstError.compareAndSet(null, ex);
				}
				now = System.nanoTime();
				this.latency.recordValue(Math.min(now - before, HIGHEST_NANOS));
				this.completed++;
			}
			this.finished = now;
			this.cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuBefore;
		}

	}

}
