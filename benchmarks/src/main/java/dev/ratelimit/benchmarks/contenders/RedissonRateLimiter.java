package dev.ratelimit.benchmarks.contenders;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Redisson's {@link RRateLimiter}: {@code tryAcquire()} runs Redisson's rate limiter script, which keeps one sorted
 * set entry per permit handed out within the interval. Rate set once per key before the measurement
 * ({@code trySetRate(OVERALL, limit, 1 s)}), limiter objects created in advance; Redisson's default single-server
 * configuration (its own connection pool). Several rules are several limiters tried one after the other, stopping at
 * the first denial; they are not all or nothing.
 */
public final class RedissonRateLimiter implements Contender {

	private final RedissonClient redisson;

	public RedissonRateLimiter(String host, int port) {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://" + host + ":" + port);
		this.redisson = Redisson.create(config);
	}

	@Override
	public Description description() {
		String version = ArtifactVersion.of("org.redisson", "redisson");
		return new Description("redisson", "Redisson " + version + " RRateLimiter", "Redisson", Role.PEER,
				"default single-server config (connection pool); `trySetRate` once per key beforehand; limiter "
						+ "objects cached");
	}

	@Override
	public String method(int rules) {
		return (rules == 1) ? "1 EVALSHA of Redisson's rate limiter script"
				: rules + " RRateLimiter.tryAcquire() one after the other";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		RRateLimiter[][] limiters = new RRateLimiter[subjects.length][rules.size()];
		List<CompletableFuture<Boolean>> pending = new ArrayList<>();
		for (int s = 0; s < subjects.length; s++) {
			for (int r = 0; r < rules.size(); r++) {
				Rule rule = rules.get(r);
				limiters[s][r] = this.redisson.getRateLimiter("redisson:" + rule.name() + ":" + subjects[s]);
				pending.add(limiters[s][r]
					.trySetRateAsync(RateType.OVERALL, rule.perSecond(), Duration.ofSeconds(1), Duration.ofHours(1))
					.toCompletableFuture());
				if (pending.size() == 1_000) {
					CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
					pending.clear();
				}
			}
		}
		CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).join();
		return (subject) -> {
			for (RRateLimiter limiter : limiters[subject]) {
				if (!limiter.tryAcquire()) {
					return false;
				}
			}
			return true;
		};
	}

	@Override
	public void close() {
		this.redisson.shutdown();
	}

}
