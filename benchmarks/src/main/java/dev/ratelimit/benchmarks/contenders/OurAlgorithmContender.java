package dev.ratelimit.benchmarks.contenders;

import java.util.List;
import java.util.Locale;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.RedisBatching;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * As {@link OurContender} (the limiter with natural batching), with policies of another rate algorithm than GCRA:
 * {@code ours-token-bucket}, {@code ours-fixed-window} and so on, to measure what each algorithm costs Redis per
 * decision (docs/algorithms.md's matrix). They all run {@code ratelimit.lua} (GCRA has its own fast path).
 */
public final class OurAlgorithmContender implements Contender {

	/** The rate algorithms other than GCRA, which {@link OurContender} measures. */
	public static final List<Algorithm> ALGORITHMS = List.of(Algorithm.TOKEN_BUCKET, Algorithm.LEAKY_BUCKET,
			Algorithm.FIXED_WINDOW, Algorithm.SLIDING_WINDOW_LOG, Algorithm.SLIDING_WINDOW_COUNTER);

	private final Algorithm algorithm;

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	public OurAlgorithmContender(String host, int port, Algorithm algorithm) {
		this.algorithm = algorithm;
		this.connectionFactory = OurContender.connectionFactory(host, port);
		this.limiter = OurContender.limiter(this.connectionFactory, RedisBatching.DEFAULT, "rl-a" + algorithm.scriptId());
	}

	/** Returns the contender id of an algorithm: {@code ours-<algorithm>}. */
	public static String id(Algorithm algorithm) {
		return "ours-" + algorithm.configName();
	}

	@Override
	public Description description() {
		String name = this.algorithm.configName();
		return new Description(id(this.algorithm), "ratelimit (this project), " + name, "ours " + name.toLowerCase(Locale.ROOT),
				Role.DIAGNOSTIC, "as *ours*, every rule `algorithm: " + name + "` (limit per second, burst = limit)");
	}

	@Override
	public String method(int rules) {
		return "1 EVALSHA of ratelimit.lua" + ((rules == 1) ? "" : " with " + rules + " checks")
				+ ", shared with the requests waiting meanwhile (natural batching)";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		return OurContender.requests(this.limiter, rules, subjects, this.algorithm);
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
