package dev.ratelimit.benchmarks.http;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One way of starting the sample jar for the HTTP benchmark: where the limiter keeps its state (or whether it runs at
 * all), and whether Spring Boot observes every Lettuce command, as it does by default with Actuator and Micrometer
 * (the sample turns that off in its {@code application.yml}, decision #20).
 *
 * @param label the row's name in the report
 * @param limiter the limiter's store, or off
 * @param lettuceObserved the value of {@code management.observations.enable.lettuce}
 * @param javaHome the JDK that runs the jar
 * @param extra further options, e.g. {@code --ratelimit.observations.enabled=false}
 */
record SampleSetup(String label, Limiter limiter, boolean lettuceObserved, Path javaHome, List<String> extra) {

	/** A setup on the benchmark's own JDK, without further options. */
	SampleSetup(String label, Limiter limiter, boolean lettuceObserved) {
		this(label, limiter, lettuceObserved, Path.of(System.getProperty("java.home")), List.of());
	}

	/** Returns the command-line options that give the sample jar this setup. */
	List<String> options() {
		List<String> options = new ArrayList<>(this.limiter.options);
		options.add("--management.observations.enable.lettuce=" + this.lettuceObserved);
		options.addAll(this.extra);
		return options;
	}

	/** Where the limiter decides, if it runs. */
	enum Limiter {

		/** The limiter on Redis: one {@code EVALSHA} per request. */
		REDIS("--ratelimit.enabled=true"),

		/** The same filter, headers and metrics on the in-memory store: no Redis round trip. */
		LOCAL("--ratelimit.enabled=true", "--ratelimit.store=local"),

		/** {@code ratelimit.enabled=false}: the application without the limiter. */
		OFF("--ratelimit.enabled=false");

		private final List<String> options;

		Limiter(String... options) {
			this.options = List.of(options);
		}

	}

}
