package dev.ratelimit.benchmarks.contenders;

import java.util.List;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.resilience.ResilientRateLimiter;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's limiter as the starter wires it with default properties: a {@link ResilientRateLimiter} (deny
 * cache, circuit breaker, local fallback) around {@code StoreRateLimiter} over {@link RedisRateLimitStore}, built by
 * {@link ResilientRateLimiter#builder} with its defaults, which are those of {@code ratelimit.*}, without
 * listeners (no metrics). A denial with a
 * wait of at least the deny cache's minimum is answered from memory until the wait ends; every other request pays
 * the deny-cache lookup and the breaker on top of {@link OurContender}'s work.
 */
public final class OurStarterDefault implements Contender {

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	public OurStarterDefault(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		RedisRateLimitStore store = new RedisRateLimitStore(SpringDataRedisConnection.of(this.connectionFactory), "rs", Blocking.TIMEOUT);
		this.limiter = ResilientRateLimiter.builder(store).build();
	}

	@Override
	public Description description() {
		return new Description("ours-starter", "ratelimit, starter default (deny cache)", "starter", Role.THIS_PROJECT,
				"what the auto-configuration builds with default properties: `ResilientRateLimiter` (deny cache: "
						+ "minimum wait 10 ms, 10,000 entries; circuit breaker; local fallback; no listeners, so no "
						+ "metrics) around the above");
	}

	@Override
	public String method(int rules) {
		String script = Scripts.fileName(Scripts.ourGcraScript());
		return "deny-cache lookup, then (unless a remembered denial answers) " + ((rules == 1)
				? "1 EVALSHA of " + script : "1 EVALSHA of " + script + " with " + rules + " checks");
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		return OurContender.requests(this.limiter, rules, subjects);
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
