package dev.ratelimit.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.ratelimit.Algorithm;
import dev.ratelimit.Decision;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.local.LocalRateLimitStore;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.test.MutableClock;
import dev.ratelimit.test.redis.RedisServerProcess;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Plays one bursty trace of requests through every rate algorithm with the same rule (10 per second), in the Java
 * reference maths (the local store) and in Redis (the Lua scripts, given the same explicit time), fails if the two
 * disagree on any decision, and draws each algorithm's admitted and denied requests with the remaining quota as an SVG
 * for docs/algorithms.md. The trace's times are fixed, so the charts are the same on every run.
 * <p>
 * {@code benchmarks/run.sh charts} writes {@code docs/images/algorithm-<name>.svg} and prints the table of the page.
 */
public final class AlgorithmCharts {

	/** The rule of every chart. */
	static final long LIMIT = 10;

	static final Duration PERIOD = Duration.ofSeconds(1);

	/** The algorithms drawn: every one that limits a rate (concurrency and distinct limit something else). */
	static final List<Algorithm> ALGORITHMS = List.of(Algorithm.GCRA, Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET,
			Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_LOG, Algorithm.SLIDING_WINDOW_COUNTER);

	/** The trace's start: a whole second, so that fixed windows start at 0 s, 1 s, 2 s, ... of the trace. */
	private static final long START_MICROS = 1_800_000_000_000_000L;

	private static final long END_MILLIS = 3_600;

	private static final long BIN_MILLIS = 100;

	private AlgorithmCharts() {
	}

	public static void main(String[] args) {
		Path dir = Path.of((args.length > 0) ? args[0] : "docs/images");
		List<Run> runs = runAgainstFreshRedis();
		write(runs, dir);
		System.out.print(table(runs));
	}

	/**
	 * The request times of the trace, in milliseconds from its start: three lone requests, a burst of 30 just before
	 * the second 1 s window starts and one of 20 just after it, then 20 per second (twice the limit) for two seconds.
	 * @return the times, in order
	 */
	static List<Long> trace() {
		List<Long> times = new ArrayList<>(List.of(0L, 100L, 200L));
		for (long t = 900; t < 960; t += 2) {
			times.add(t);
		}
		for (long t = 1_000; t < 1_040; t += 2) {
			times.add(t);
		}
		for (long t = 1_500; t < 3_500; t += 50) {
			times.add(t);
		}
		return times;
	}

	/**
	 * One request's decision.
	 * @param millis its time from the trace's start
	 * @param allowed whether it was admitted
	 * @param remaining the quota left after it
	 */
	record Point(long millis, boolean allowed, long remaining) {
	}

	/**
	 * One algorithm's run over the trace.
	 * @param algorithm the algorithm
	 * @param points a decision per request
	 */
	record Run(Algorithm algorithm, List<Point> points) {

		long admitted() {
			return this.points.stream().filter(Point::allowed).count();
		}

		long admittedBetween(long fromMillis, long toMillis) {
			return this.points.stream()
				.filter((point) -> point.allowed() && point.millis() >= fromMillis && point.millis() < toMillis)
				.count();
		}

		/** @return the most requests admitted within any one period (a sliding second) of the trace */
		long mostInAnyPeriod() {
			long most = 0;
			for (Point point : this.points) {
				most = Math.max(most, admittedBetween(point.millis(), point.millis() + PERIOD.toMillis()));
			}
			return most;
		}

	}

	/** Starts a redis-server (the one on the PATH, else the embedded one), runs every algorithm, stops it. */
	static List<Run> runAgainstFreshRedis() {
		try (RedisServerProcess server = RedisServerProcess.start()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(server.host(), server.port()));
			factory.afterPropertiesSet();
			factory.start();
			try {
				List<Run> runs = new ArrayList<>();
				for (Algorithm algorithm : ALGORITHMS) {
					runs.add(run(algorithm, factory));
				}
				return runs;
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * Plays the trace through one algorithm, in Java and in Redis.
	 * @param algorithm the algorithm
	 * @param factory a connection to an empty Redis
	 * @return the decisions
	 * @throws IllegalStateException when Java and Redis disagree on a decision
	 */
	static Run run(Algorithm algorithm, LettuceConnectionFactory factory) {
		MutableClock clock = new MutableClock(START_MICROS);
		LocalRateLimitStore reference = new LocalRateLimitStore(1_000, clock, new LeaseIds("c"));
		RedisRateLimitStore redis = new RedisRateLimitStore(SpringDataRedisConnection.of(factory),
				"chart" + algorithm.ordinal(), Duration.ofSeconds(10), clock::micros,
				new LeaseIds("c"));
		RateLimitCheck check = RateLimitCheck.of(RateLimitPolicy.of("demo", algorithm, LIMIT, PERIOD), "client");
		List<Point> points = new ArrayList<>();
		for (long millis : trace()) {
			clock.setMicros(START_MICROS + millis * 1_000);
			Decision java = reference.evaluate(List.of(check)).get(0);
			Decision lua = redis.evaluate(List.of(check)).get(0);
			if (java.allowed() != lua.allowed() || java.remaining() != lua.remaining()
					|| !java.retryAfter().equals(lua.retryAfter()) || !java.resetAfter().equals(lua.resetAfter())) {
				throw new IllegalStateException(algorithm + " at " + millis + " ms: Java " + java + ", Redis " + lua);
			}
			points.add(new Point(millis, java.allowed(), java.remaining()));
		}
		return new Run(algorithm, points);
	}

	/** Writes {@code algorithm-<name>.svg} of every run into a directory. */
	static void write(List<Run> runs, Path dir) {
		try {
			Files.createDirectories(dir);
			for (Run run : runs) {
				Files.writeString(dir.resolve(fileName(run.algorithm())), svg(run));
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static String fileName(Algorithm algorithm) {
		return "algorithm-" + algorithm.configName() + ".svg";
	}

	/** Returns the Markdown table of what each algorithm admitted from the trace. */
	static String table(List<Run> runs) {
		StringBuilder table = new StringBuilder()
			.append("| algorithm | admitted of ").append(trace().size())
			.append(" | burst of 30 at 0.90 s | burst of 20 at 1.00 s | most in any 1 s | 20/s from 1.5 s to 3.5 s: admitted |\n")
			.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
		for (Run run : runs) {
			table.append("| `").append(run.algorithm().configName()).append("` | ").append(run.admitted())
				.append(" | ").append(run.admittedBetween(900, 960))
				.append(" | ").append(run.admittedBetween(1_000, 1_040))
				.append(" | ").append(run.mostInAnyPeriod())
				.append(" | ").append(run.admittedBetween(1_500, 3_500))
				.append(" |\n");
		}
		return table.toString();
	}

	// drawing: one panel of stacked bars (admitted, denied per 100 ms) over one of the remaining quota

	private static final int WIDTH = 760;

	private static final int LEFT = 60;

	private static final int PLOT = 680;

	private static final int BARS_TOP = 48;

	private static final int BARS_HEIGHT = 120;

	private static final int QUOTA_TOP = 200;

	private static final int QUOTA_HEIGHT = 60;

	private static final int HEIGHT = 300;

	private static final int MAX_PER_BIN = 30;

	static String svg(Run run) {
		StringBuilder svg = new StringBuilder();
		svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
			.append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
			.append("\" font-family=\"sans-serif\" font-size=\"11\">\n");
		svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
		svg.append(text(LEFT, 20, "start", "bold", "13",
				run.algorithm().configName() + ": " + LIMIT + " per 1 s, " + run.admitted() + " of " + run.points().size()
						+ " requests admitted, at most " + run.mostInAnyPeriod() + " in any 1 s"));
		svg.append(text(WIDTH - 10, 20, "end", "normal", "11", "admitted").replace("<text", "<text fill=\"#1a7f37\""));
		svg.append(text(WIDTH - 70, 20, "end", "normal", "11", "denied").replace("<text", "<text fill=\"#cf222e\""));
		// bars, over their grid
		for (int count = 0; count <= MAX_PER_BIN; count += 10) {
			double y = BARS_TOP + BARS_HEIGHT - barHeight(count);
			svg.append(line(LEFT - 4, y, LEFT + PLOT, y, "#d0d7de"));
			svg.append(text(LEFT - 8, y + 4, "end", "normal", "10", Integer.toString(count)));
		}
		int bins = (int) (END_MILLIS / BIN_MILLIS);
		double binWidth = (double) PLOT / bins;
		for (int bin = 0; bin < bins; bin++) {
			long from = bin * BIN_MILLIS;
			long admitted = run.points().stream()
				.filter((p) -> p.allowed() && p.millis() >= from && p.millis() < from + BIN_MILLIS)
				.count();
			long denied = run.points().stream()
				.filter((p) -> !p.allowed() && p.millis() >= from && p.millis() < from + BIN_MILLIS)
				.count();
			double x = LEFT + bin * binWidth + 1;
			double admittedHeight = barHeight(admitted);
			double deniedHeight = barHeight(denied);
			double base = BARS_TOP + BARS_HEIGHT;
			if (admitted > 0) {
				svg.append(rect(x, base - admittedHeight, binWidth - 2, admittedHeight, "#2da44e"));
			}
			if (denied > 0) {
				svg.append(rect(x, base - admittedHeight - deniedHeight, binWidth - 2, deniedHeight, "#cf222e"));
			}
		}
		svg.append(text(12, BARS_TOP + BARS_HEIGHT / 2.0, "middle", "normal", "10", "per 100 ms")
			.replace("<text", "<text transform=\"rotate(-90 12 " + fmt(BARS_TOP + BARS_HEIGHT / 2.0) + ")\""));
		// remaining quota after each request, as steps
		svg.append(text(LEFT, QUOTA_TOP - 8, "start", "normal", "11", "remaining after each request (0 to " + LIMIT + ")"));
		svg.append(line(LEFT, QUOTA_TOP + QUOTA_HEIGHT, LEFT + PLOT, QUOTA_TOP + QUOTA_HEIGHT, "#d0d7de"));
		svg.append(line(LEFT, QUOTA_TOP, LEFT + PLOT, QUOTA_TOP, "#d0d7de"));
		svg.append(text(LEFT - 8, QUOTA_TOP + 4, "end", "normal", "10", Long.toString(LIMIT)));
		svg.append(text(LEFT - 8, QUOTA_TOP + QUOTA_HEIGHT + 4, "end", "normal", "10", "0"));
		StringBuilder path = new StringBuilder();
		double previousY = 0;
		for (Point point : run.points()) {
			double x = x(point.millis());
			double y = QUOTA_TOP + QUOTA_HEIGHT - (double) point.remaining() * QUOTA_HEIGHT / LIMIT;
			path.append(path.isEmpty() ? "M" + fmt(x) + " " + fmt(y) : " H" + fmt(x) + " V" + fmt(y));
			previousY = y;
		}
		path.append(" H").append(fmt(x(END_MILLIS))).append(" V").append(fmt(previousY));
		svg.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"1.5\"/>\n");
		for (Point point : run.points()) {
			double y = QUOTA_TOP + QUOTA_HEIGHT - (double) point.remaining() * QUOTA_HEIGHT / LIMIT;
			svg.append("<circle cx=\"").append(fmt(x(point.millis()))).append("\" cy=\"").append(fmt(y))
				.append("\" r=\"1.6\" fill=\"").append(point.allowed() ? "#2da44e" : "#cf222e").append("\"/>\n");
		}
		// time axis
		for (long millis = 0; millis <= END_MILLIS; millis += 500) {
			double x = x(millis);
			svg.append(line(x, BARS_TOP + BARS_HEIGHT, x, BARS_TOP + BARS_HEIGHT + 4, "#57606a"));
			svg.append(line(x, QUOTA_TOP + QUOTA_HEIGHT, x, QUOTA_TOP + QUOTA_HEIGHT + 4, "#57606a"));
			svg.append(text(x, QUOTA_TOP + QUOTA_HEIGHT + 16, "middle", "normal", "10",
					String.format(Locale.ROOT, "%.1f s", millis / 1000.0)));
		}
		svg.append(text(x(END_MILLIS / 2), BARS_TOP + BARS_HEIGHT + 16, "middle", "normal", "10",
				"requests per 100 ms: admitted (green), denied (red)"));
		svg.append("</svg>\n");
		return svg.toString();
	}

	private static double barHeight(long count) {
		return (double) Math.min(count, MAX_PER_BIN) * BARS_HEIGHT / MAX_PER_BIN;
	}

	private static double x(long millis) {
		return LEFT + (double) millis * PLOT / END_MILLIS;
	}

	private static String rect(double x, double y, double width, double height, String fill) {
		return "<rect x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" width=\"" + fmt(width) + "\" height=\"" + fmt(height)
				+ "\" fill=\"" + fill + "\"/>\n";
	}

	private static String line(double x1, double y1, double x2, double y2, String stroke) {
		return "<line x1=\"" + fmt(x1) + "\" y1=\"" + fmt(y1) + "\" x2=\"" + fmt(x2) + "\" y2=\"" + fmt(y2)
				+ "\" stroke=\"" + stroke + "\"/>\n";
	}

	private static String text(double x, double y, String anchor, String weight, String size, String content) {
		return "<text x=\"" + fmt(x) + "\" y=\"" + fmt(y) + "\" text-anchor=\"" + anchor + "\" font-weight=\"" + weight
				+ "\" font-size=\"" + size + "\">" + content.replace("&", "&amp;").replace("<", "&lt;") + "</text>\n";
	}

	private static String fmt(double value) {
		return String.format(Locale.ROOT, "%.1f", value);
	}

}
