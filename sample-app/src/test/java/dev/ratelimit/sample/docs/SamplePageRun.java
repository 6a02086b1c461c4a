package dev.ratelimit.sample.docs;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.ratelimit.sample.SampleApplication;
import dev.ratelimit.sample.SampleQuotas;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One run of the transcripts of a documentation page against sample apps: every {@code $ curl} (and
 * {@code $ redis-cli}) line is run and its output compared with the one shown. The line above a block says what it
 * runs against, as {@code <!-- transcript: ... -->} with one or more of, joined by {@code ", and "}:
 * <ul>
 * <li>{@code a fresh sample app}: a new application (fresh metrics, an empty embedded Redis), {@code localhost:PORT}
 * of any port but a second instance's;</li>
 * <li>{@code 10 s later}: stands for the wait by emptying Redis and the deny cache (every quota is back, as it would
 * be);</li>
 * <li>{@code a second sample app on the same Redis (localhost:8090)}, optionally followed by
 * {@code with name=value ...}: a second instance sharing the first one's Redis, which {@code localhost:8090} of the
 * transcript stands for; a read ({@code GET}) of a block with a second instance that differs is read again for up to
 * 2 s, the time an override takes to reach another instance ({@code ratelimit.overrides.refresh-interval}, 500 ms,
 * with room for a loaded machine).</li>
 * </ul>
 * Other blocks go on with the same applications; a block under {@code <!-- illustration: ... -->} is not run (the
 * page says in its prose that it is one).
 */
final class SamplePageRun {

	static final String ILLUSTRATION = "<!-- illustration:";

	private static final Pattern MARKER = Pattern.compile("<!-- transcript: (.+) -->");

	private static final Pattern SECOND = Pattern
		.compile("a second sample app on the same Redis \\(localhost:(\\d+)\\)(?: with (.+))?");

	private static final String[] APP = { "--server.port=0", "--sample.embedded-redis=always",
			"--ratelimit.redis.timeout=5s" };

	private final Markdown page;

	private final List<String> failures = new ArrayList<>();

	private final RealOutput real;

	private int checked;

	private boolean slow;

	private ConfigurableApplicationContext first;

	private ConfigurableApplicationContext second;

	private int secondShownPort;

	private SamplePageRun(Markdown page) {
		this.page = page;
		this.real = new RealOutput(page);
	}

	/**
	 * Runs the page's transcripts.
	 * @param page the page
	 * @return what the run found
	 */
	static SamplePageRun of(Markdown page) {
		SamplePageRun run = new SamplePageRun(page);
		try {
			run.run();
		}
		finally {
			run.closeAll();
		}
		return run;
	}

	/** @return the steps whose output differs from the one shown */
	List<String> failures() {
		return this.failures;
	}

	/** @return how many steps ran */
	int checked() {
		return this.checked;
	}

	/** @return whether a block took longer than 1.5 s to send (GCRA gives a unit back every 2 s) */
	boolean slow() {
		return this.slow;
	}

	/** @return the page with the real output of the steps that differ */
	RealOutput real() {
		return this.real;
	}

	private void run() {
		for (Markdown.Block block : this.page.blocks()) {
			List<CurlTranscript.Step> steps = CurlTranscript.steps(block);
			String before = this.page.lineBefore(block);
			if (steps.isEmpty() || before.startsWith(ILLUSTRATION)) {
				continue;
			}
			Matcher marker = MARKER.matcher(before);
			if (marker.matches()) {
				for (String action : marker.group(1).split(", and ")) {
					prepare(action, block);
				}
			}
			assertThat(this.first).as("a transcript before any <!-- transcript: a fresh sample app --> (line "
					+ block.line() + ")").isNotNull();
			boolean twoInstances = this.second != null;
			CurlTranscript transcript = new CurlTranscript(port(this.first),
					twoInstances ? Map.of(this.secondShownPort, port(this.second)) : Map.of(), this::redisCli);
			long started = System.nanoTime();
			for (CurlTranscript.Step step : steps) {
				String actual = transcript.run(step.command());
				String difference = CurlTranscript.difference(step.expected(), actual);
				long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
				while (difference != null && twoInstances && isRead(step) && System.nanoTime() < deadline) {
					actual = transcript.run(step.command());
					difference = CurlTranscript.difference(step.expected(), actual);
				}
				this.checked++;
				if (difference != null) {
					this.real.record(step, actual);
					this.failures.add("line " + step.line() + ": $ " + step.command() + "\n" + difference);
				}
			}
			this.slow |= System.nanoTime() - started > 1_500_000_000L;
		}
	}

	private void prepare(String action, Markdown.Block block) {
		Matcher second = SECOND.matcher(action);
		if (action.equals("a fresh sample app")) {
			closeAll();
			this.first = new SpringApplicationBuilder(SampleApplication.class).run(APP);
		}
		else if (action.equals("10 s later")) {
			SampleQuotas.restore(this.first);
			if (this.second != null) {
				SampleQuotas.restore(this.second);
			}
		}
		else if (second.matches()) {
			assertThat(this.first).as("a second sample app needs a first (line " + block.line() + ")").isNotNull();
			close(this.second);
			List<String> args = new ArrayList<>(List.of("--server.port=0", "--sample.embedded-redis=never",
					"--ratelimit.redis.timeout=5s",
					"--spring.data.redis.url=" + this.first.getEnvironment().getProperty("spring.data.redis.url")));
			if (second.group(2) != null) {
				for (String property : second.group(2).split("\\s+")) {
					args.add("--" + property);
				}
			}
			this.second = new SpringApplicationBuilder(SampleApplication.class).run(args.toArray(String[]::new));
			this.secondShownPort = Integer.parseInt(second.group(1));
		}
		else {
			throw new IllegalArgumentException("line " + block.line() + ": transcript marker not understood: " + action);
		}
	}

	/** Runs a redis-cli command on the first application's Redis, printed as redis-cli prints to a pipe. */
	private String redisCli(List<String> words) {
		byte[][] args = words.subList(1, words.size())
			.stream()
			.map((word) -> word.getBytes(StandardCharsets.UTF_8))
			.toArray(byte[][]::new);
		try (RedisConnection connection = this.first.getBean(RedisConnectionFactory.class).getConnection()) {
			return printed(connection.execute(words.get(0), args));
		}
	}

	private static String printed(Object reply) {
		if (reply instanceof List<?> list) {
			StringBuilder out = new StringBuilder();
			list.forEach((element) -> out.append(printed(element)));
			return out.toString();
		}
		if (reply instanceof Map<?, ?> map) {
			StringBuilder out = new StringBuilder();
			map.forEach((key, value) -> out.append(printed(key)).append(printed(value)));
			return out.toString();
		}
		if (reply instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8) + "\n";
		}
		return reply + "\n";
	}

	private static boolean isRead(CurlTranscript.Step step) {
		List<String> words = CurlTranscript.words(step.command());
		return words.get(0).equals("curl") && !words.contains("-X") && !words.contains("-d");
	}

	private static int port(ConfigurableApplicationContext context) {
		return ((WebServerApplicationContext) context).getWebServer().getPort();
	}

	private void closeAll() {
		close(this.second);
		this.second = null;
		close(this.first);
		this.first = null;
	}

	private static void close(ConfigurableApplicationContext context) {
		if (context != null) {
			context.close();
		}
	}

}
