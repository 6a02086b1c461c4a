package dev.ratelimit.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * The HTTP client of the HTTP tests: requests to an application on {@code 127.0.0.1}, answered as strings.
 */
public final class TestHttp {

	private static final HttpClient client = HttpClient.newHttpClient();

	private final int port;

	/**
	 * @param port the application's port
	 */
	public TestHttp(int port) {
		this.port = port;
	}

	/** Sends a GET. */
	public HttpResponse<String> get(String path) {
		return call("GET", path, null, Map.of());
	}

	/** Sends a GET with headers. */
	public HttpResponse<String> get(String path, Map<String, String> headers) {
		return call("GET", path, null, headers);
	}

	/**
	 * Sends a GET with headers that fails when no response has come within the timeout, for tests that must show no
	 * request hangs.
	 * @param path the path and query
	 * @param headers the headers
	 * @param timeout how long to wait for the response
	 * @return the response
	 */
	public HttpResponse<String> get(String path, Map<String, String> headers, Duration timeout) {
		HttpRequest request = HttpRequest.newBuilder(request("GET", path, null, headers), (name, value) -> true)
			.timeout(timeout)
			.build();
		return send(request);
	}

	/**
	 * Sends a request.
	 * @param method the method
	 * @param path the path and query
	 * @param json a JSON body, or {@code null} for none
	 * @param headers the headers
	 * @return the response
	 */
	public HttpResponse<String> call(String method, String path, @Nullable String json, Map<String, String> headers) {
		return send(request(method, path, json, headers));
	}

	private static HttpResponse<String> send(HttpRequest request) {
		try {
			return client.send(request, HttpResponse.BodyHandlers.ofString());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * Sends a GET without waiting for the response, e.g. to an endpoint that answers when the test says so.
	 * @param path the path and query
	 * @param headers the headers
	 * @return the response, when it comes
	 */
	public CompletableFuture<HttpResponse<String>> getAsync(String path, Map<String, String> headers) {
		return client.sendAsync(request("GET", path, null, headers), HttpResponse.BodyHandlers.ofString());
	}

	private HttpRequest request(String method, String path, @Nullable String json, Map<String, String> headers) {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
			.method(method, (json != null) ? HttpRequest.BodyPublishers.ofString(json) : HttpRequest.BodyPublishers.noBody());
		if (json != null) {
			request.header("Content-Type", "application/json");
		}
		headers.forEach(request::header);
		return request.build();
	}

	/** Returns a response header, failing the test when there is none. */
	public static String header(HttpResponse<?> response, String name) {
		return response.headers().firstValue(name).orElseThrow(() -> new AssertionError("no " + name + " header"));
	}

}
