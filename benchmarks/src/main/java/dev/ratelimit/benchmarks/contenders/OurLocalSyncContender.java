package dev.ratelimit.benchmarks.contenders;

import java.time.Duration;
import java.util.List;

import dev.ratelimit.RateLimiter;
import dev.ratelimit.lease.LeaseIds;
import dev.ratelimit.redis.RedisBatching;
import dev.ratelimit.redis.RedisRateLimitStore;
import dev.ratelimit.redis.SpringDataRedisConnection;
import dev.ratelimit.store.StoreRateLimiter;
import dev.ratelimit.sync.LocalSyncStore;
import dev.ratelimit.sync.SyncListener;
import dev.ratelimit.sync.SyncSettings;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * This project's limiter with every rule in {@code sync: local} mode (docs/consistency.md): decisions from this
 * instance's views, flushed to Redis every 100 ms or at 10% of the limit, as *ours* otherwise. Its over-admission is
 * not in this table (one instance decides exactly); {@code LocalSyncIntegrationTests} measures it with four.
 */
public final class OurLocalSyncContender implements Contender {

	private final LettuceConnectionFactory connectionFactory;

	private final LocalSyncStore store;

	private final RateLimiter limiter;

	public OurLocalSyncContender(String host, int port) {
		this.connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
		this.connectionFactory.afterPropertiesSet();
		this.connectionFactory.start();
		RedisRateLimitStore shared = new RedisRateLimitStore(SpringDataRedisConnection.of(this.connectionFactory), "rl",
				Blocking.TIMEOUT, null, LeaseIds.random(), RedisBatching.DEFAULT);
		this.store = new LocalSyncStore(shared, shared,
				(name) -> new SyncSettings(Duration.ofMillis(100), 100), 1_000_000, Duration.ofMillis(100),
				SyncListener.NONE);
		this.limiter = new StoreRateLimiter(this.store);
	}

	@Override
	public Description description() {
		return new Description("ours-local", "ratelimit (this project), sync: local", "ours local", Role.DIAGNOSTIC,
				"as *ours*, every rule `sync: local` (views in memory, flushed every 100 ms or at 100 units per key, "
						+ "one `sync.lua` call per flush); error bound in docs/consistency.md");
	}

	@Override
	public String method(int rules) {
		return "in memory; 1 EVALSHA of sync.lua per flush of every dirty key (100 ms, or 100 units of one key)";
	}

	@Override
	public Requests prepare(List<Rule> rules, String[] subjects) {
		return OurContender.requests(this.limiter, rules, subjects);
	}

	@Override
	public void close() {
		this.store.close();
		this.connectionFactory.destroy();
	}

}
