package dev.ratelimit.test;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * A streamed HTTP/1.1 response read from a plain socket, as it arrives on the wire, with nothing between the server
 * and the test that could buffer it: for tests of chunk-by-chunk delivery ({@link #awaitText}) and of clients that hang
 * up mid-stream ({@link #hangUp}, a TCP reset). The request asks for {@code Connection: close}, so the response ends
 * with the connection ({@link #readToEnd}). Not thread-safe: one stream per thread.
 */
public final class RawStream implements Closeable {

	private final Socket socket;

	private final InputStream in;

	private final ByteArrayOutputStream received = new ByteArrayOutputStream();

	private final byte[] buffer = new byte[8192];

	/** Whether the server has closed the connection. */
	private boolean ended;

	private RawStream(Socket socket) throws IOException {
		this.socket = socket;
		this.in = socket.getInputStream();
	}

	/**
	 * Sends a GET and returns the stream of its response, unread.
	 * @param port the application's port on {@code 127.0.0.1}
	 * @param target the path and query
	 * @param headers extra request headers
	 * @return the stream
	 * @throws IOException when the connection fails
	 */
	public static RawStream get(int port, String target, Map<String, String> headers) throws IOException {
		Socket socket = new Socket();
		try {
			socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
			StringBuilder request = new StringBuilder("GET ").append(target)
				.append(" HTTP/1.1\r\nHost: 127.0.0.1:")
				.append(port)
				.append("\r\nConnection: close\r\n");
			headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
			OutputStream out = socket.getOutputStream();
			out.write(request.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII));
			out.flush();
			return new RawStream(socket);
		}
		catch (IOException | RuntimeException ex) {
			socket.close();
			throw ex;
		}
	}

	/**
	 * Reads until what has arrived (status line, headers and body, with its chunk framing) contains the text.
	 * @param text the text to wait for
	 * @param timeout how long to wait, in all
	 * @return whether it arrived within the timeout (false also when the response ended without it)
	 * @throws IOException when reading fails
	 */
	public boolean awaitText(String text, Duration timeout) throws IOException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!received().contains(text)) {
			long left = deadline - System.nanoTime();
			if (left <= 0 || !readSome(Math.max(1, Duration.ofNanos(left).toMillis()))) {
				return received().contains(text);
			}
		}
		return true;
	}

	/**
	 * Reads until the server closes the connection.
	 * @param timeout how long to wait, in all
	 * @return everything that arrived
	 * @throws IOException when reading fails or the response has not ended within the timeout
	 */
	public String readToEnd(Duration timeout) throws IOException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			long left = deadline - System.nanoTime();
			if (left <= 0) {
				throw new SocketTimeoutException("The response had not ended after " + timeout);
			}
			if (!readSome(Math.max(1, Duration.ofNanos(left).toMillis())) && this.ended) {
				return received();
			}
		}
	}

	/** Reads what is there, waiting up to the timeout; false at the end of the stream or on the timeout. */
	private boolean readSome(long timeoutMillis) throws IOException {
		this.socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, timeoutMillis));
		int n;
		try {
			n = this.in.read(this.buffer);
		}
		catch (SocketTimeoutException ex) {
			return false;
		}
		if (n < 0) {
			this.ended = true;
			return false;
		}
		this.received.write(this.buffer, 0, n);
		return true;
	}

	/** Returns the status of the response, once its status line has arrived. */
	public int status() {
		String text = received();
		if (!text.startsWith("HTTP/1.1 ") || text.length() < 12) {
			throw new IllegalStateException("No status line yet: " + text);
		}
		return Integer.parseInt(text.substring(9, 12));
	}

	/** Returns everything that has arrived so far, as ISO-8859-1 text. */
	public String received() {
		return this.received.toString(StandardCharsets.ISO_8859_1);
	}

	/** Hangs up mid-response with a TCP reset, so that the server's next writes fail. */
	public void hangUp() throws IOException {
		this.socket.setSoLinger(true, 0);
		this.socket.close();
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
