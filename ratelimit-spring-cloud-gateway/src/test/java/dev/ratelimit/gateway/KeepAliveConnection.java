package dev.ratelimit.gateway;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 keep-alive connection on a plain socket, as a simple client (Python's {@code http.client}) uses it:
 * a request is written only after the previous response was read in full, and every read waits at most the given
 * timeout. Understands {@code Content-Length} and chunked bodies, nothing more.
 */
final class KeepAliveConnection implements AutoCloseable {

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	KeepAliveConnection(int port, Duration timeout) throws IOException {
		this.socket = new Socket("127.0.0.1", port);
		this.socket.setTcpNoDelay(true);
		this.socket.setSoTimeout((int) timeout.toMillis());
		this.in = new BufferedInputStream(this.socket.getInputStream());
		this.out = this.socket.getOutputStream();
	}

	/**
	 * Sends {@code GET path} and reads its response in full.
	 * @param path the path
	 * @return the status
	 * @throws java.net.SocketTimeoutException when the response does not come in time
	 * @throws IOException when the connection fails or the server closes it
	 */
	int get(String path) throws IOException {
		this.out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII));
		this.out.flush();
		String statusLine = line();
		int status = Integer.parseInt(statusLine.split(" ")[1]);
		long length = -1;
		boolean chunked = false;
		for (String header = line(); !header.isEmpty(); header = line()) {
			String lower = header.toLowerCase(Locale.ROOT);
			if (lower.startsWith("content-length:")) {
				length = Long.parseLong(lower.substring("content-length:".length()).trim());
			}
			else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
				chunked = true;
			}
		}
		if (chunked) {
			for (long size = Long.parseLong(line().split(";")[0].trim(), 16); size > 0; size = Long
				.parseLong(line().split(";")[0].trim(), 16)) {
				skip(size);
				line();
			}
			// trailers, up to the empty line
			while (!line().isEmpty()) {
				// nothing to keep
			}
		}
		else if (length > 0) {
			skip(length);
		}
		return status;
	}

	private String line() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		for (int b = this.in.read(); b != '\n'; b = this.in.read()) {
			if (b < 0) {
				throw new EOFException("connection closed by the server");
			}
			if (b != '\r') {
				line.write(b);
			}
		}
		return line.toString(StandardCharsets.US_ASCII);
	}

	private void skip(long bytes) throws IOException {
		for (long left = bytes; left > 0; left--) {
			if (this.in.read() < 0) {
				throw new EOFException("connection closed by the server");
			}
		}
	}

	@Override
	public void close() throws IOException {
		this.socket.close();
	}

}
