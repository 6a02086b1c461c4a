package dev.ratelimit.benchmarks.contenders;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.StoreRateLimiter;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's limiter with a {@code concurrency} rule, as the starter's filter uses it: a request acquires a lease
 * in its verdict ({@code EVALSHA} of {@code ratelimit.lua}) and gives it back when it ends ({@code EVALSHA} of
 * {@code lease.lua}), two round trips where a rate rule needs one. Here it ends at once, so what is measured is the
 * cost of the two calls, not of holding a place. With {@code withRate}, each request also has a GCRA rule, decided in
 * the same call as the lease (all or nothing).
 */
public final class OurConcurrencyContender implements Contender {

	/** The lease timeout of the benchmark's concurrency rule (the default); no lease lives that long here. */
	private static final Duration LEASE_TIMEOUT = Duration.ofSeconds(60);

	private final boolean withRate;

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	/**
	 * @param host Redis's host
	 * @param port Redis's port
	 * @param withRate whether each request also has the scenario's rules as GCRA rate rules
	 */
	public OurConcurrencyContender(String host, int port, boolean withRate) {
		this.withRate = withRate;
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		this.limiter = new StoreRateLimiter(new RedisRateLimitStore(SpringDataRedisConnection.of(this.connectionFactory),
				this.withRate ? "rl-rate-leases" : "rl-leases", Blocking.TIMEOUT));
	}

	@Override
	public Description description() {
		return this.withRate
				? new Description("ours-rate-concurrency", "ratelimit, rate + concurrency rule", "ours, rate + lease",
						Role.THIS_PROJECT, "as *ours*, each request with its GCRA rule(s) and a `concurrency` rule "
								+ "decided in one call, then its lease released")
				: new Description("ours-concurrency", "ratelimit, concurrency rule", "ours, lease", Role.THIS_PROJECT,
						"as *ours*, each request with a `concurrency` rule instead of its rate rule(s): a lease "
								+ "acquired, then released");
	}

	@Override
	public String method(int rules) {
		String checks = this.withRate ? (rules + " GCRA + 1 concurrency check") : "1 concurrency check";
		return "1 EVALSHA of ratelimit.lua (" + checks + ") + 1 EVALSHA of lease.lua (release)";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		List<RateLimitPolicy> policies = new ArrayList<>();
		if (this.withRate) {
			rules.forEach((rule) -> policies.add(RateLimitPolicy.of(rule.name(), Algorithm.GCRA, rule.perSecond(),
					Duration.ofSeconds(1))));
		}
		// as many in progress per subject as any scenario could have: every request is admitted
		policies.add(RateLimitPolicy.concurrency(rules.get(0).name() + "-in-flight", RateLimitPolicy.MAX_LOG_LIMIT,
				LEASE_TIMEOUT));
		return (subject) -> {
			List<RateLimitCheck> checks = new ArrayList<>(policies.size());
			for (RateLimitPolicy policy : policies) {
				checks.add(RateLimitCheck.of(policy, subjects[subject]));
			}
			Verdict verdict = this.limiter.evaluate(checks);
			if (!verdict.leases().isEmpty()) {
				this.limiter.release(verdict.leases());
			}
			return verdict.allowed();
		};
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
