package dev.ratelimit.benchmarks.contenders;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting for an asynchronous Redis reply the way a blocking limiter does, with unchecked failures. */
final class Blocking {

	/** How long any contender waits for one reply: generous, so that slow tails count as latency, not errors. */
	static final Duration TIMEOUT = Duration.ofSeconds(5);

	private Blocking() {
	}

	static <T> T await(Future<T> future) {
		try {
			return future.get(TIMEOUT.toNanos(), TimeUnit.NANOSECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted", ex);
		}
		catch (ExecutionException ex) {
			throw new IllegalStateException(ex.getCause().getMessage(), ex.getCause());
		}
		catch (TimeoutException ex) {
			future.cancel(false);
			throw new IllegalStateException("No reply within " + TIMEOUT, ex);
		}
	}

}
