package dev.ratelimit.client;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.jspecify.annotations.Nullable;

/**
 * A third-party API with a hard cap, on the JDK's HTTP server on a free port of {@code 127.0.0.1}: it admits at most
 * {@code limit} requests in any sliding window of {@code window}, measured on its own clock (the JVM's monotonic
 * clock, read when the request is handled), and answers 429 (with {@code Retry-After: 1}) to a request that finds
 * {@code limit} admitted ones in the window that ends at its arrival (refused requests are not counted). Every other request gets 200. {@link #refuseNext} makes it refuse the next
 * requests with a chosen status and {@code Retry-After} regardless. Requests to {@code /warmup} are answered 200 and
 * not counted: a test warms its clients up with them (the first call of a client opens its connection, which can
 * make it arrive later than calls scheduled after it).
 */
final class ProviderStub implements AutoCloseable {

	/**
	 * A request header a test may set: the bounds of the request's reserved slot on this JVM's monotonic clock, the
	 * earliest and the latest it may be, separated by a space.
	 */
	static final String SLOT_HEADER = "X-Slot";

	private final int limit;

	private final long windowNanos;

	private final HttpServer server;

	private final List<Long> arrivals = new ArrayList<>();

	private final List<Long> admitted = new ArrayList<>();

	private final List<Long> refusedAt = new ArrayList<>();

	/** The arrival of each counted request and the bounds of the slot it carried in {@link #SLOT_HEADER}, if any. */
	private final List<long[]> slots = new ArrayList<>();

	private int refusals;

	private int refusalStatus;

	private @Nullable String refusalRetryAfter;

	private ProviderStub(int limit, Duration window) throws IOException {
		this.limit = limit;
		this.windowNanos = window.toNanos();
		this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
		this.server.createContext("/", this::handle);
		// handled on the server's dispatcher thread (each answer is immediate): no hand-over to another thread
		// between a request's arrival and the time it is stamped with
		this.server.setExecutor(null);
		this.server.start();
	}

	/**
	 * Starts a provider that allows {@code limit} requests in any sliding window of {@code window}.
	 * @param limit the requests allowed in a window
	 * @param window the window
	 * @return the running provider
	 * @throws IOException when it cannot listen
	 */
	static ProviderStub start(int limit, Duration window) throws IOException {
		return new ProviderStub(limit, window);
	}

	/** Returns its base URL, {@code http://127.0.0.1:<port>}. */
	String url() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/** Returns the subject of calls to it, as {@link RateLimitedClients#subjectOf} names it. */
	String target() {
		return "127.0.0.1:" + this.server.getAddress().getPort();
	}

	/** Makes it answer the next {@code count} requests with {@code status} and {@code Retry-After} (if not null). */
	synchronized void refuseNext(int count, int status, @Nullable String retryAfter) {
		this.refusals = count;
		this.refusalStatus = status;
		this.refusalRetryAfter = retryAfter;
	}

	/** Returns when each request arrived (nanoTime), in arrival order. */
	synchronized long[] arrivals() {
		return this.arrivals.stream().mapToLong(Long::longValue).toArray();
	}

	/** Returns the gaps between consecutive arrivals, in milliseconds, for a failure message. */
	synchronized String gaps() {
		StringBuilder gaps = new StringBuilder();
		for (int i = 1; i < this.arrivals.size(); i++) {
			gaps.append((this.arrivals.get(i) - this.arrivals.get(i - 1)) / 1_000_000).append(' ');
		}
		return gaps.toString().trim();
	}

	/** Returns when it answered 429 because of its own cap (nanoTime), in arrival order. */
	synchronized List<Long> refusedAt() {
		return List.copyOf(this.refusedAt);
	}

	/**
	 * Returns the bounds of the slots the counted requests carried in {@link #SLOT_HEADER} (nanoTime), each as the
	 * earliest and the latest, in arrival order.
	 */
	synchronized List<long[]> slots() {
		return this.slots.stream()
			.filter((slot) -> slot[1] != Long.MIN_VALUE)
			.map((slot) -> new long[] { slot[1], slot[2] })
			.toList();
	}

	/**
	 * Returns how late each request counted in the window that ends at {@code end} arrived after the slot it carried
	 * (nanoseconds; after the earliest its slot may be, so no less late than it was): the requests it admitted in
	 * that window and one that arrived at {@code end}.
	 * @param end an arrival (nanoTime), e.g. of a refused request
	 * @return the arrivals' lateness, in arrival order
	 * @throws AssertionError when one of them carried no slot
	 */
	synchronized List<Long> latenessInWindowEndingAt(long end) {
		List<Long> lateness = new ArrayList<>();
		for (long[] slot : this.slots) {
			boolean counted = slot[0] == end || (this.admitted.contains(slot[0]) && slot[0] <= end
					&& end - slot[0] < this.windowNanos);
			if (counted) {
				if (slot[1] == Long.MIN_VALUE) {
					throw new AssertionError("a request without " + SLOT_HEADER);
				}
				lateness.add(slot[0] - slot[1]);
			}
		}
		return lateness;
	}

	private void handle(HttpExchange exchange) throws IOException {
		int status = 200;
		String retryAfter = null;
		if (!exchange.getRequestURI().getPath().startsWith("/warmup")) {
			synchronized (this) {
				long now = System.nanoTime();
				this.arrivals.add(now);
				String slot = exchange.getRequestHeaders().getFirst(SLOT_HEADER);
				String[] bounds = (slot != null) ? slot.split(" ") : null;
				this.slots.add((bounds != null)
						? new long[] { now, Long.parseLong(bounds[0]), Long.parseLong(bounds[1]) }
						: new long[] { now, Long.MIN_VALUE, Long.MIN_VALUE });
				if (this.refusals > 0) {
					this.refusals--;
					status = this.refusalStatus;
					retryAfter = this.refusalRetryAfter;
				}
				else if (admittedInWindowEndingAt(now) >= this.limit) {
					this.refusedAt.add(now);
					status = 429;
					retryAfter = "1";
				}
				else {
					this.admitted.add(now);
				}
			}
		}
		exchange.getRequestBody().readAllBytes();
		if (retryAfter != null) {
			exchange.getResponseHeaders().set("Retry-After", retryAfter);
		}
		exchange.sendResponseHeaders(status, -1);
		exchange.close();
	}

	private int admittedInWindowEndingAt(long now) {
		int count = 0;
		for (int i = this.admitted.size() - 1; i >= 0 && now - this.admitted.get(i) < this.windowNanos; i--) {
			count++;
		}
		return count;
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
