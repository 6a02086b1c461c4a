package dev.ratelimit.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What the streaming endpoints of the settle tests share with the tests: the gates a gated stream waits at before
 * each chunk after the first (opened by the test once it has seen the previous chunk arrive), and how many tokens each
 * stream produced (the last value it reported with {@code RateLimitContext.settle}), recorded when it stops producing.
 */
public final class StreamGates {

	/** How long a gated stream waits for its gate before it gives up. */
	public static final Duration GATE_TIMEOUT = Duration.ofSeconds(30);

	private final Map<String, CompletableFuture<Void>> gates = new ConcurrentHashMap<>();

	private final Map<String, Long> produced = new ConcurrentHashMap<>();

	/** Returns the gate a stream waits at before its chunk {@code chunk} (2, 3, ...). */
	public CompletableFuture<Void> gate(String id, int chunk) {
		return this.gates.computeIfAbsent(id + "#" + chunk, (key) -> new CompletableFuture<>());
	}

	/** Waits, on a thread that may block, for the gate before chunk {@code chunk}. */
	public void await(String id, int chunk) {
		try {
			gate(id, chunk).get(GATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Gate " + chunk + " of " + id + " stayed closed", ex);
		}
	}

	/** Opens the gate before chunk {@code chunk}: the test has seen the chunk before it arrive. */
	public void open(String id, int chunk) {
		gate(id, chunk).complete(null);
	}

	/** Returns the text of a stream's token {@code i}: 16 bytes, {@code token-000000001} and a newline. */
	public static byte[] token(long i) {
		return String.format("token-%09d\n", i).getBytes(StandardCharsets.US_ASCII);
	}

	/** Records what a stream produced when it stops producing. */
	public void produced(String id, long tokens) {
		this.produced.put(id, tokens);
	}

	/** Returns what a stream produced, or {@code null} while it produces. */
	public Long produced(String id) {
		return this.produced.get(id);
	}

}
