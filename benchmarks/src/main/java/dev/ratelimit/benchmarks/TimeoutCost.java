package dev.ratelimit.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.ratelimit.Futures;

/**
 * What the non-blocking forms' timeout costs one call when calls come one at a time (as in the WebFlux overhead
 * benchmark): {@link Futures#withTimeout} around a future that another thread completes (standing for the Redis
 * client's event loop), 100,000 calls after as many for warm-up; prints p50, p99 and the JVM's CPU per call. Run it
 * at two revisions to compare ({@code benchmarks/run.sh timeout}); see docs/profiling.md and decision 132.
 */
public final class TimeoutCost {

	private TimeoutCost() {
	}

	public static void main(String[] args) {
		int calls = Integer.getInteger("bench.calls", 100_000);
		ExecutorService io = Executors.newSingleThreadExecutor();
		long[] latencies = new long[calls];
		for (int round = 0; round < 2; round++) {
			long cpuBefore = cpuNanos();
			for (int i = 0; i < calls; i++) {
				long start = System.nanoTime();
				CompletableFuture<Integer> call = new CompletableFuture<>();
				CompletableFuture<Integer> bounded = Futures.withTimeout(call, Duration.ofSeconds(1));
				io.execute(() -> call.complete(1));
				bounded.join();
				latencies[i] = System.nanoTime() - start;
			}
			long cpu = cpuNanos() - cpuBefore;
			Arrays.sort(latencies);
			if (round == 1) {
				System.out.printf(Locale.ROOT, "Futures.withTimeout, one call at a time: p50 %.1f us, p99 %.1f us, JVM "
						+ "CPU %.1f us per call (%,d calls)%n", latencies[calls / 2] / 1e3,
						latencies[calls * 99 / 100] / 1e3, cpu / 1e3 / calls, calls);
			}
		}
		io.shutdown();
	}

	private static long cpuNanos() {
		return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
			.getProcessCpuTime();
	}

}
