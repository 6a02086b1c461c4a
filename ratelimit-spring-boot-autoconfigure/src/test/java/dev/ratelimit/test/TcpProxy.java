package dev.ratelimit.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy for tests that forwards to a target and can hold back every reply by a configurable delay, making a
 * healthy Redis look slow.
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

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
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
				out.write(buffer, 0, read);
				out.flush();
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
