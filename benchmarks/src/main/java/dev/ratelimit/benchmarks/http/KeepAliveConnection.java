package dev.ratelimit.benchmarks.http;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The load client of the HTTP benchmark: one keep-alive HTTP/1.1 connection that sends a fixed GET and reads the
 * response (status line, headers, a body of {@code Content-Length} bytes), reconnecting when the server closes it.
 * Fails on anything but 200, so a denial or an error cannot pass for a fast answer. A full-featured client
 * (java.net.http) cost more per request than the server did and hid what it measured (decision #21).
 */
public final class KeepAliveConnection implements AutoCloseable {

	private final int port;

	private final byte[] request;

	private final StringBuilder line = new StringBuilder();

	private Socket socket;

	private OutputStream out;

	private InputStream in;

	/**
	 * Connects.
	 * @param port the server's port on 127.0.0.1
	 * @param path the path every request asks for
	 * @throws IOException when it cannot connect
	 */
	public KeepAliveConnection(int port, String path) throws IOException {
		this.port = port;
		this.request = ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n")
			.getBytes(StandardCharsets.US_ASCII);
		connect();
	}

	private void connect() throws IOException {
		this.socket = new Socket();
		this.socket.setTcpNoDelay(true);
		this.socket.connect(new InetSocketAddress("127.0.0.1", this.port), 1_000);
		this.socket.setSoTimeout(10_000);
		this.out = this.socket.getOutputStream();
		this.in = new BufferedInputStream(this.socket.getInputStream(), 8192);
	}

	/** Sends the request and reads the whole response; fails unless it is a 200. */
	public void get() throws IOException {
		this.out.write(this.request);
		this.out.flush();
		String status = readLine();
		if (!status.startsWith("HTTP/1.1 200")) {
			throw new IOException("Expected 200, got: " + status);
		}
		long length = -1;
		boolean closing = false;
		for (String header = readLine(); !header.isEmpty(); header = readLine()) {
			if (header.regionMatches(true, 0, "Content-Length:", 0, 15)) {
				length = Long.parseLong(header.substring(15).strip());
			}
			else if (header.regionMatches(true, 0, "Connection:", 0, 11)) {
				closing = header.substring(11).strip().equalsIgnoreCase("close");
			}
		}
		if (length < 0) {
			throw new IOException("Expected a Content-Length");
		}
		for (long skipped = 0; skipped < length; skipped++) {
			if (this.in.read() < 0) {
				throw new EOFException();
			}
		}
		if (closing) {
			// the server ends keep-alive (Tomcat does after max-keep-alive-requests): reconnect, as browsers do
			close();
			connect();
		}
	}

	private String readLine() throws IOException {
		this.line.setLength(0);
		for (int c = this.in.read(); c != '\n'; c = this.in.read()) {
			if (c < 0) {
				throw new EOFException();
			}
			if (c != '\r') {
				this.line.append((char) c);
			}
		}
		return this.line.toString();
	}

	@Override
	public void close() {
		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

}
