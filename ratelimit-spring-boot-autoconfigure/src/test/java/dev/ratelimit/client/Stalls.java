package dev.ratelimit.client;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Records when this JVM did not run a thread for a while (a machine shared by several builds starves it, a garbage
 * collection stops it): a daemon thread that asks to sleep 5 ms notes every time it woke much later. A call that was
 * due during such a stall leaves when it ends, next to the calls due after it, so a provider sees them bunched however
 * well their slots were spaced. Assertions use it to tell a refusal caused by the limiter from one caused by a stall.
 */
final class Stalls implements AutoCloseable {

	private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	private final long thresholdNanos;

	private final List<long[]> stalls = new ArrayList<>();

	private final Thread thread;

	private volatile boolean running = true;

	private Stalls(long thresholdNanos) {
		this.thresholdNanos = thresholdNanos;
		this.thread = new Thread(this::watch, "stalls");
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Starts recording stalls longer than a threshold.
	 * @param thresholdMillis the shortest stall recorded
	 * @return the recorder
	 */
	static Stalls longerThan(long thresholdMillis) {
		return new Stalls(TimeUnit.MILLISECONDS.toNanos(thresholdMillis));
	}

	private void watch() {
		while (this.running) {
			long before = System.nanoTime();
			try {
				Thread.sleep(5);
			}
			catch (InterruptedException ex) {
				return;
			}
			long after = System.nanoTime();
			if (after - before - TICK_NANOS > this.thresholdNanos) {
				synchronized (this) {
					this.stalls.add(new long[] { before + TICK_NANOS, after });
				}
			}
		}
	}

	/**
	 * Returns whether a stall ended within {@code windowNanos} before {@code time} (or was still going on then).
	 * @param time a time (nanoTime)
	 * @param windowNanos how far back a stall's end counts
	 * @return whether a stall explains bunching at that time
	 */
	synchronized boolean endedWithin(long time, long windowNanos) {
		for (long[] stall : this.stalls) {
			if (stall[0] <= time && stall[1] >= time - windowNanos) {
				return true;
			}
		}
		return false;
	}

	/** Returns the total length of the stalls recorded, in nanoseconds. */
	synchronized long totalNanos() {
		long total = 0;
		for (long[] stall : this.stalls) {
			total += stall[1] - stall[0];
		}
		return total;
	}

	/** Returns the stalls recorded, as their lengths in milliseconds. */
	synchronized String describe() {
		StringBuilder lengths = new StringBuilder();
		for (long[] stall : this.stalls) {
			lengths.append((stall[1] - stall[0]) / 1_000_000).append("ms ");
		}
		return lengths.isEmpty() ? "none" : lengths.toString().trim();
	}

	@Override
	public void close() {
		this.running = false;
		this.thread.interrupt();
	}

}
