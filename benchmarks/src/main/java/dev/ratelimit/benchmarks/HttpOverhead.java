package dev.ratelimit.benchmarks;

import java.nio.file.Path;

import dev.ratelimit.benchmarks.http.HttpBenchmark;

/**
 * What the limiter adds to an HTTP request: the sample app's {@code GET /api/hello} served by instances of the sample
 * jar on one Redis, with the limiter on Redis, on the local store and off, and with the limiter on Redis and off under
 * Spring Boot's default Lettuce command observation; see {@link HttpBenchmark}.
 * <p>
 * Writes {@code docs/benchmarks-http.md}. Run by {@code benchmarks/run.sh http} (and {@code all}).
 */
public final class HttpOverhead {

	private HttpOverhead() {
	}

	public static void main(String[] args) throws Exception {
		Path jar = Path.of("sample-app/target/sample-app-0.1.0-SNAPSHOT.jar");
		Path docs = Path.of((args.length > 0) ? args[0] : "docs");
		HttpBenchmark.run(jar, docs);
	}

}
