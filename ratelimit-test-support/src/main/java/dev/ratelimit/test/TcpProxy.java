package dev.ratelimit.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/**
 * A TCP proxy for tests that forwards to a target and can hold back every reply by a configurable delay, making a
 * healthy Redis look slow, or {@link #partition() cut} the network: what is in flight is lost, in both directions.
 */
public final class TcpProxy implements AutoCloseable {

	private final ServerSocket server;

	private final String targetHost;

	private final int targetPort;

	private final ExecutorService threads = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "tcp-proxy");
		thread.setDaemon(true);
		return thread;
	});

	private final List<Socket> sockets = new CopyOnWriteArrayList<>();

	private volatile long replyDelayMillis;

	private volatile boolean partitioned;

	/** While set, every reply chunk waits for it to open. */
	private volatile @Nullable CountDownLatch replyGate;

	/** The number of reply chunks waiting at the gate. */
	private final AtomicInteger heldReplies = new AtomicInteger();

	/** Guards forwarding a request against a partition beginning meanwhile. */
	private final Object requests = new Object();

	private volatile long lastReplyNanos = System.nanoTime();

	public TcpProxy(String targetHost, int targetPort) throws IOException {
		this.targetHost = targetHost;
		this.targetPort = targetPort;
		this.server = new ServerSocket();
		this.server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
		this.threads.execute(this::accept);
	}

	public int port() {
		return this.server.getLocalPort();
	}

	/** Delays every reply chunk from the target by this long (0 to forward at once). */
	public void setReplyDelayMillis(long millis) {
		this.replyDelayMillis = millis;
	}

	/**
	 * Holds back every reply from now on (a chunk already held goes through) until {@link #releaseReplies()} or the
	 * next call of this method: a call stays in flight exactly as long as the test wants.
	 */
	public void holdReplies() {
		CountDownLatch previous = this.replyGate;
		this.replyGate = new CountDownLatch(1);
		if (previous != null) {
			previous.countDown();
		}
	}

	/** Returns whether a reply chunk is being held back. */
	public boolean holdsAReply() {
		return this.heldReplies.get() > 0;
	}

	/** Forwards the replies held back, and those to come, at once. */
	public void releaseReplies() {
		CountDownLatch previous = this.replyGate;
		this.replyGate = null;
		if (previous != null) {
			previous.countDown();
		}
	}

	/**
	 * Cuts the network as a server that stops would: from now on no request reaches the target; the replies to what
	 * reached it before are still delivered (waiting until none has come for 100 ms); then every connection is closed,
	 * and new connections are closed at once, until {@link #heal()}.
	 */
	public void partition() {
		synchronized (this.requests) {
			this.partitioned = true;
		}
		await().atMost(Duration.ofSeconds(5))
			.pollInterval(Duration.ofMillis(10))
			.until(() -> System.nanoTime() - this.lastReplyNanos > Duration.ofMillis(100).toNanos());
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
	}

	/** Ends a {@link #partition()}: new connections are forwarded again. */
	public void heal() {
		this.partitioned = false;
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				if (this.partitioned) {
					closeQuietly(client);
					continue;
				}
				Socket target = new Socket(this.targetHost, this.targetPort);
				client.setTcpNoDelay(true);
				target.setTcpNoDelay(true);
				this.sockets.add(client);
				this.sockets.add(target);
				this.threads.execute(() -> pump(client, target, false));
				this.threads.execute(() -> pump(target, client, true));
			}
			catch (IOException ex) {
				// closed, or the target refused: the client sees its connection close
			}
		}
	}

	private void pump(Socket from, Socket to, boolean replies) {
		byte[] buffer = new byte[16 * 1024];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				long delay = this.replyDelayMillis;
				if (replies && delay > 0) {
					TimeUnit.MILLISECONDS.sleep(delay);
				}
				CountDownLatch gate = this.replyGate;
				if (replies && gate != null) {
					this.heldReplies.incrementAndGet();
					try {
						gate.await();
					}
					finally {
						this.heldReplies.decrementAndGet();
					}
				}
				if (replies) {
					out.write(buffer, 0, read);
					out.flush();
					this.lastReplyNanos = System.nanoTime();
					continue;
				}
				synchronized (this.requests) {
					if (this.partitioned) {
						continue; // dropped: never reaches the target
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
		}
		catch (IOException | InterruptedException ex) {
			// connection closed
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.threads.shutdownNow();
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already closed
		}
	}

}
