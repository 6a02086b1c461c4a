package dev.ratelimit.gateway;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

/**
 * A local backend behind the gateway's routes: answers every request 200 {@code backend} as {@code text/plain}, as a
 * Spring controller returning a {@code String} answers; a request with {@code ?usage=N} is answered with the header
 * {@code X-Usage-Tokens: N}, as a language model's API reports its usage.
 */
final class LocalBackend implements AutoCloseable {

	private final HttpServer server;

	private LocalBackend(HttpServer server) {
		this.server = server;
	}

	static LocalBackend start() {
		try {
			HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
			server.createContext("/", (exchange) -> {
				byte[] body = "backend".getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().set("Content-Type", "text/plain;charset=UTF-8");
				String query = exchange.getRequestURI().getQuery();
				if (query != null && query.startsWith("usage=")) {
					exchange.getResponseHeaders().set("X-Usage-Tokens", query.substring(6));
				}
				exchange.sendResponseHeaders(200, body.length);
				try (OutputStream out = exchange.getResponseBody()) {
					out.write(body);
				}
			});
			server.start();
			return new LocalBackend(server);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	String uri() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
