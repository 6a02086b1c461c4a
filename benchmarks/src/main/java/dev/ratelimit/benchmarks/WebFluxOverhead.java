package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;

import dev.ratelimit.benchmarks.http.KeepAliveConnection;
import dev.ratelimit.test.redis.RedisServerProcess;
import dev.ratelimit.web.ConformanceTestApplication;
import org.HdrHistogram.Histogram;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the WebFlux filter adds to a request: one WebFlux application (the conformance suite's, on Reactor Netty, in
 * this JVM) on a redis-server of its own, asked alternately for a path one rule limits (GCRA, keyed by IP, a limit
 * never reached: every request is one store call) and a path no rule matches, each over a keep-alive HTTP/1.1
 * connection of its own ({@link KeepAliveConnection}, the servlet benchmark's raw-socket client), one request at a
 * time. Prints p50 and p99 of both and their difference. With {@code java.net.http} as the client, its own threads
 * (in the same JVM, on the same two cores) made the p99 gap 2-3 times larger, as decision 21 found for the servlet
 * benchmark.
 * <p>
 * The client shares the JVM and the machine with the server and Redis, so the absolute latencies are this machine's;
 * the difference is what the filter and its Redis round trip add. Run by {@code benchmarks/run.sh webflux}; the
 * number of measured requests is {@code -Dbench.requests} (default 20000, after as many for warm-up).
 */
public final class WebFluxOverhead {

	private WebFluxOverhead() {
	}

	public static void main(String[] args) throws Exception {
		int requests = Integer.getInteger("bench.requests", 20_000);
		Result result = measure(requests);
		System.out.printf("WebFlux filter, %d requests each, one connection, one at a time%n", requests);
		System.out.printf("| path | p50 (µs) | p99 (µs) |%n| --- | --- | --- |%n");
		row("no rule (`/cf/bench/open`)", result.open());
		row("one rule on Redis (`/cf/bench/limited`)", result.limited());
		System.out.printf("| added by the filter | %.0f | %.0f |%n", result.addedMicros(50), result.addedMicros(99));
	}

	/**
	 * Measures both paths.
	 * @param requests the measured requests per path (after as many for warm-up)
	 * @return the latencies of both paths, in nanoseconds
	 * @throws Exception when the application or a request fails
	 */
	static Result measure(int requests) throws Exception {
		try (RedisServerProcess redis = RedisServerProcess.start();
				ConfigurableApplicationContext app = new SpringApplicationBuilder(ConformanceTestApplication.class)
					.properties("spring.config.name=ratelimit-conformance-test", "server.port=0",
							"spring.main.web-application-type=reactive",
							// the gateway jar is on this class path for its script only: none of its auto-configuration
							ConformanceTestApplication.EXCLUDE_REACTIVE_SECURITY + "," + gatewayAutoConfigurations(),
							"spring.data.redis.url=" + redis.uri(),
							"logging.level.root=WARN",
							"ratelimit.rules.bench.match.paths=/cf/bench/limited",
							"ratelimit.rules.bench.key=ip", "ratelimit.rules.bench.limit=1000000000",
							"ratelimit.rules.bench.period=1h")
					.run()) {
			int port = ((WebServerApplicationContext) app).getWebServer().getPort();
			Histogram limitedLatency = new Histogram(60_000_000_000L, 3);
			Histogram openLatency = new Histogram(60_000_000_000L, 3);
			try (KeepAliveConnection limited = new KeepAliveConnection(port, "/cf/bench/limited");
					KeepAliveConnection open = new KeepAliveConnection(port, "/cf/bench/open")) {
				for (int i = 0; i < 2 * requests; i++) {
					boolean measured = i >= requests;
					long limitedNanos = send(limited);
					long openNanos = send(open);
					if (measured) {
						limitedLatency.recordValue(limitedNanos);
						openLatency.recordValue(openNanos);
					}
				}
			}
			return new Result(requests, openLatency, limitedLatency);
		}
	}

	private static String gatewayAutoConfigurations() throws IOException {
		List<String> names = new ArrayList<>();
		Enumeration<URL> imports = WebFluxOverhead.class.getClassLoader()
			.getResources("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
		while (imports.hasMoreElements()) {
			URL url = imports.nextElement();
			if (url.toString().contains("spring-cloud-gateway")) {
				try (InputStream in = url.openStream()) {
					new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
						.map(String::trim)
						.filter((line) -> !line.isEmpty() && !line.startsWith("#"))
						.forEach(names::add);
				}
			}
		}
		return String.join(",", names);
	}

	private static long send(KeepAliveConnection connection) throws IOException {
		long start = System.nanoTime();
		connection.get();
		return System.nanoTime() - start;
	}

	private static void row(String name, Histogram latency) {
		System.out.printf("| %s | %.0f | %.0f |%n", name, latency.getValueAtPercentile(50) / 1000.0,
				latency.getValueAtPercentile(99) / 1000.0);
	}

	/**
	 * Latencies of one run, in nanoseconds.
	 * @param requests the measured requests per path
	 * @param open the path no rule matches
	 * @param limited the path one rule on Redis limits
	 */
	record Result(int requests, Histogram open, Histogram limited) {

		/** Returns what the filter adds at a percentile, in microseconds. */
		double addedMicros(double percentile) {
			return (this.limited.getValueAtPercentile(percentile) - this.open.getValueAtPercentile(percentile)) / 1000.0;
		}

	}

}
