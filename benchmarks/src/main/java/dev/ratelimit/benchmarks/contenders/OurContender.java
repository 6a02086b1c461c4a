package dev.ratelimit.benchmarks.contenders;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.ratelimit.Algorithm;
import dev.ratelimit.RateLimitCheck;
import dev.ratelimit.RateLimitPolicy;
import dev.ratelimit.RateLimiter;
import dev.ratelimit.Verdict;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.StoreRateLimiter;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's limiter as an application uses it: {@link StoreRateLimiter} over {@link RedisRateLimitStore} on a
 * default {@link LettuceConnectionFactory} (one shared native connection), GCRA policies. Each request builds its
 * {@link RateLimitCheck}s from the subject and calls {@link RateLimiter#evaluate}, which sends all checks in one
 * {@code EVALSHA} (of {@code gcra.lua}, the store's fast path for GCRA, or {@code ratelimit.lua}) and returns a full
 * {@code Verdict} (remaining, reset and retry-after per check).
 * <p>
 * The asynchronous variant ({@code ours-async}) calls {@link RateLimiter#evaluateAsync} instead, with
 * {@value InFlightWindow#DEPTH} decisions in flight per load thread: a different caller shape from every other
 * contender's (blocking threads), which shows how far batching goes when callers do not park on each decision.
 */
public final class OurContender implements Contender {

	private final LettuceConnectionFactory connectionFactory;

	private final RateLimiter limiter;

	private final RedisBatching batching;

	private final boolean async;

	/**
	 * @param host Redis's host
	 * @param port Redis's port
	 * @param batching the store's batching: {@link RedisBatching#DEFAULT} (the limiter as configured by default) or
	 * {@link RedisBatching#OFF} (one script call per decision, as before issue 14)
	 */
	public OurContender(String host, int port, RedisBatching batching) {
		this(host, port, batching, false);
	}

	/**
	 * @param host Redis's host
	 * @param port Redis's port
	 * @param batching the store's batching
	 * @param async whether to call {@link RateLimiter#evaluateAsync} with {@value InFlightWindow#DEPTH} decisions in
	 * flight per load thread, rather than {@link RateLimiter#evaluate}
	 */
	public OurContender(String host, int port, RedisBatching batching, boolean async) {
		this.batching = batching;
		this.async = async;
		this.connectionFactory = connectionFactory(host, port);
		this.limiter = limiter(this.connectionFactory, batching);
	}

	/**
	 * Returns this project's limiter batching in one lane ({@code ratelimit.redis.batch.lanes: 1}): one script call in
	 * flight at a time, so larger batches and fewer calls per decision, at a cost in waiting (decision 88).
	 * @param host Redis's host
	 * @param port Redis's port
	 */
	public static OurContender oneLane(String host, int port) {
		RedisBatching defaults = RedisBatching.DEFAULT;
		return new OurContender(host, port, new RedisBatching(true, 1, defaults.maxRequests(), defaults.maxChecks()));
	}

	/** A default {@link LettuceConnectionFactory}, started. */
	static LettuceConnectionFactory connectionFactory(String host, int port) {
		LettuceConnectionFactory connectionFactory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(host, port));
		connectionFactory.afterPropertiesSet();
		connectionFactory.start();
		return connectionFactory;
	}

	/** The limiter as an application has it: {@link StoreRateLimiter} over the Redis store. */
	static RateLimiter limiter(LettuceConnectionFactory connectionFactory, RedisBatching batching) {
		return limiter(connectionFactory, batching, "rl");
	}

	/**
	 * The limiter over the Redis store with its own key prefix: contenders that keep another algorithm's state under
	 * the same rule and subject must not share keys (a key holds one algorithm's state).
	 */
	static RateLimiter limiter(LettuceConnectionFactory connectionFactory, RedisBatching batching, String keyPrefix) {
		return new StoreRateLimiter(new RedisRateLimitStore(SpringDataRedisConnection.of(connectionFactory), keyPrefix,
				Blocking.TIMEOUT, null, LeaseIds.random(), batching));
	}

	@Override
	public Description description() {
		String setUp = "`StoreRateLimiter` over `RedisRateLimitStore` on a default `LettuceConnectionFactory` (one "
				+ "shared connection); checks built from the subject per request; full `Verdict`";
		if (!this.batching.enabled()) {
			return new Description("ours-unbatched", "ratelimit (this project), batching off", "ours unbatched",
					Role.DIAGNOSTIC, setUp + "; `ratelimit.redis.batch.enabled=false`: one script call per decision");
		}
		if (this.async) {
			return new Description("ours-async", "ratelimit (this project), non-blocking callers", "ours async",
					Role.DIAGNOSTIC, "as *ours*, but `evaluateAsync` with " + InFlightWindow.shape()
							+ ": a different caller shape from the blocking threads of every other row, so not "
							+ "comparable with them one to one; compare it with *ideal async*");
		}
		if (!this.async && this.batching.lanes() == 1) {
			return new Description("ours-1-lane", "ratelimit (this project), one lane", "ours 1 lane",
					Role.DIAGNOSTIC, setUp + "; `ratelimit.redis.batch.lanes=1`: one script call in flight at a time");
		}
		return new Description("ours", "ratelimit (this project)", "ours", Role.THIS_PROJECT,
				setUp + "; natural batching (the default: " + this.batching.lanes() + " lanes, up to "
						+ this.batching.maxRequests() + " requests per call)");
	}

	@Override
	public String method(int rules) {
		String script = Scripts.fileName(Scripts.ourGcraScript());
		String one = (rules == 1) ? "1 EVALSHA of " + script
				: "1 EVALSHA of " + script + " with " + rules + " checks (all or nothing)";
		return this.batching.enabled() ? one + ", shared with the requests waiting meanwhile (natural batching)"
				: one;
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		return this.async ? asyncRequests(rules, subjects) : requests(this.limiter, rules, subjects);
	}

	private Requests asyncRequests(List<Rule> rules, String[] subjects) {
		List<RateLimitPolicy> policies = policies(rules);
		InFlightWindow<Verdict> window = new InFlightWindow<>(Verdict::allowed);
		return (subject) -> window.request(() -> this.limiter.evaluateAsync(checks(policies, subjects[subject])));
	}

	/** One request = one {@link RateLimiter} call with a GCRA check per rule, as the starter's filter makes it. */
	static Requests requests(RateLimiter limiter, List<Rule> rules, String[] subjects) {
		return requests(limiter, rules, subjects, Algorithm.GCRA);
	}

	/** One request = one {@link RateLimiter} call with a check of the algorithm per rule. */
	static Requests requests(RateLimiter limiter, List<Rule> rules, String[] subjects, Algorithm algorithm) {
		List<RateLimitPolicy> policies = policies(rules, algorithm);
		if (policies.size() == 1) {
			RateLimitPolicy policy = policies.get(0);
			return (subject) -> limiter.evaluate(RateLimitCheck.of(policy, subjects[subject])).allowed();
		}
		return (subject) -> limiter.evaluate(checks(policies, subjects[subject])).allowed();
	}

	private static List<RateLimitPolicy> policies(List<Rule> rules) {
		return policies(rules, Algorithm.GCRA);
	}

	private static List<RateLimitPolicy> policies(List<Rule> rules, Algorithm algorithm) {
		return rules.stream()
			.map((rule) -> RateLimitPolicy.of(rule.name(), algorithm, rule.perSecond(), Duration.ofSeconds(1)))
			.toList();
	}

	private static List<RateLimitCheck> checks(List<RateLimitPolicy> policies, String subject) {
		if (policies.size() == 1) {
			return List.of(RateLimitCheck.of(policies.get(0), subject));
		}
		List<RateLimitCheck> checks = new ArrayList<>(policies.size());
		for (RateLimitPolicy policy : policies) {
			checks.add(RateLimitCheck.of(policy, subject));
		}
		return checks;
	}

	@Override
	public void close() {
		this.connectionFactory.destroy();
	}

}
